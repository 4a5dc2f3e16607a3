/**
 * The PGlite worker thread: opens the engine from `workerData` and answers the client's requests one at a time, in
 * the order sent (the client sends the next only after this one's answer). Answers `{id, ok, value}` or
 * `{id, ok: false, error}` with the error's fields.
 */
import {parentPort, workerData} from "node:worker_threads";
import {PgliteEngine, errorFields} from "./pgliteEngine.js";
import type {EngineRequest} from "./client.js";

const {dataDir, template} = workerData as {dataDir: string | null; template?: Blob};
const opened = PgliteEngine.open(dataDir, template);
// Until the engine is open, the answer to every request is its opening's failure.
opened.catch(() => {});

parentPort!.on("message", (req: EngineRequest) => {
  void answer(req);
});

async function answer(req: EngineRequest): Promise<void> {
  try {
    const engine = await opened;
    let value: unknown;
    switch (req.op) {
      case "open":
        value = null;
        break;
      case "query":
        value = await engine.query(req.sql, req.params);
        break;
      case "exec":
        await engine.exec(req.sql);
        value = null;
        break;
      case "dump":
        value = await engine.dump();
        break;
      case "close":
        await engine.close();
        value = null;
        break;
    }
    parentPort!.postMessage({id: req.id, ok: true, value});
  } catch (e) {
    parentPort!.postMessage({id: req.id, ok: false, error: errorFields(e)});
  }
}
