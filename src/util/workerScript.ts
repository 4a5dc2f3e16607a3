/**
 * The compiled script of a worker thread that sits beside the module asking for it: `sibling.js` next to the
 * caller's own file. Running from source (vitest runs the `.ts` files), the build of the same module in `dist/` is
 * used (`npm test` builds first). Null when the script is not there: the caller then does the work on its own thread.
 */
import {existsSync} from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";

export function workerScript(callerUrl: string, sibling: string): string | null {
  const here = fileURLToPath(callerUrl);
  let script = path.join(path.dirname(here), `${sibling}.js`);
  if (here.endsWith(".ts")) {
    const src = `${path.sep}src${path.sep}`;
    const at = script.lastIndexOf(src);
    if (at < 0) return null;
    script = `${script.slice(0, at)}${path.sep}dist${script.slice(at)}`;
  }
  return existsSync(script) ? script : null;
}
