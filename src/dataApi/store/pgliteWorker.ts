/**
 * The thread that owns PGlite (see pgliteThread.ts): opens a PgliteSqlClient and runs the calls it is sent, each
 * answered with its id. A transaction is opened by "begin" and held open, its statements run in the order they
 * arrive, until "end" commits or rolls it back. Outside transactions the client's own serialisation applies (see
 * pgliteThread.ts).
 */
import {parentPort, workerData} from "node:worker_threads";
import {PgliteSqlClient} from "./pglite.js";
import type {SqlTx} from "./sql.js";
import {toWireError, type ThreadInit, type ThreadRequest, type ThreadResponse} from "./pgliteThread.js";

/** A transaction that has begun and not ended. */
interface OpenTxn {
  tx: SqlTx;
  /** Its statements, one after another. */
  chain: Promise<unknown>;
  /** Resolves the transaction's callback: commit, or roll back. */
  finish: (commit: boolean, id: number) => void;
}

/** Thrown inside a transaction's callback to roll it back without an error of its own. */
const ROLLBACK = Symbol("rollback");

const port = parentPort!;
const init = workerData as ThreadInit;
const txns = new Map<number, OpenTxn>();

/** Runs a call and posts its outcome; a value that cannot be copied to the main thread is answered as an error. */
async function answer(id: number, run: () => Promise<unknown>): Promise<void> {
  try {
    const value = await run();
    port.postMessage({id, ok: true, value: value ?? null} satisfies ThreadResponse);
  } catch (err) {
    port.postMessage({id, ok: false, error: toWireError(err)} satisfies ThreadResponse);
  }
}

/** The open transaction `txn`; undefined, with call `id` answered as an error, when there is none. */
function openTxn(id: number, txn: number): OpenTxn | undefined {
  const open = txns.get(txn);
  if (open === undefined) void answer(id, () => Promise.reject(new Error(`transaction ${txn} is not open`)));
  return open;
}

function binaryParams(req: Extract<ThreadRequest, {op: "query"}>): unknown[] | undefined {
  const params = req.params;
  if (params === undefined || req.binary === undefined) return params;
  for (const i of req.binary) {
    const u = params[i] as Uint8Array;
    params[i] = Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  }
  return params;
}

function begin(db: PgliteSqlClient, id: number, txn: number): void {
  let begun = false;
  let endId = 0;
  db.transaction(async (tx) => {
    const commit = await new Promise<boolean>((resolve) => {
      txns.set(txn, {
        tx,
        chain: Promise.resolve(),
        finish: (c, at) => {
          endId = at;
          resolve(c);
        },
      });
      begun = true;
      port.postMessage({id, ok: true, value: null} satisfies ThreadResponse);
    });
    await txns.get(txn)!.chain;
    if (!commit) throw ROLLBACK;
  })
    .then(
      () => port.postMessage({id: endId, ok: true, value: null} satisfies ThreadResponse),
      (err: unknown) => {
        const answerId = begun ? endId : id;
        if (err === ROLLBACK) port.postMessage({id: answerId, ok: true, value: null} satisfies ThreadResponse);
        else port.postMessage({id: answerId, ok: false, error: toWireError(err)} satisfies ThreadResponse);
      },
    )
    .finally(() => txns.delete(txn));
}

async function main(): Promise<void> {
  let db: PgliteSqlClient;
  try {
    db = await PgliteSqlClient.open(
      init.dataDir,
      init.template ? new Blob([init.template]) : undefined,
      init.sharedBuffersMb,
    );
  } catch (err) {
    port.postMessage({id: 0, ok: false, error: toWireError(err)} satisfies ThreadResponse);
    return;
  }
  port.postMessage({id: 0, ok: true, value: null} satisfies ThreadResponse);
  port.on("message", (m: ThreadRequest & {id: number}) => {
    switch (m.op) {
      case "query":
      case "exec": {
        const run = (on: SqlTx): Promise<unknown> =>
          m.op === "query" ? on.query(m.sql, binaryParams(m)) : on.exec(m.sql);
        if (m.txn === undefined) {
          void answer(m.id, () => run(db));
          break;
        }
        const open = openTxn(m.id, m.txn);
        if (open) open.chain = open.chain.then(() => answer(m.id, () => run(open.tx)));
        break;
      }
      case "begin":
        begin(db, m.id, m.txn);
        break;
      case "end":
        openTxn(m.id, m.txn)?.finish(m.commit, m.id);
        break;
      case "dump":
        void answer(m.id, async () => new Uint8Array(await (await db.dumpDataDir()).arrayBuffer()));
        break;
      case "close":
        void answer(m.id, () => db.close());
        break;
    }
  });
}

void main();
