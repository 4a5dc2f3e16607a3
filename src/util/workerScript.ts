/**
 * The compiled script of a worker thread that sits beside the module asking for it: `sibling.js` next to the
 * caller's own `.js`. Running from source (vitest runs the `.ts` files), the build of the same module in `dist/` is
 * used (`npm test` builds first); null when there is none, and the caller then does the work on its own thread.
 */
import {existsSync} from "node:fs";
import {fileURLToPath} from "node:url";

export function workerScript(callerUrl: string, sibling: string): string | null {
  const here = fileURLToPath(callerUrl);
  const script = here.replace(/[^/]+\.(js|ts)$/, `${sibling}.js`);
  if (here.endsWith(".js")) return script;
  const at = script.lastIndexOf("/src/");
  if (at < 0) return null;
  const built = `${script.slice(0, at)}/dist${script.slice(at)}`;
  return existsSync(built) ? built : null;
}
