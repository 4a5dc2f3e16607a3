/** The index store on a real LevelDB: atomic, idempotent accepts with the feed position; reads; restarts. */
import {createHash} from "node:crypto";
import {existsSync, readdirSync, renameSync, rmSync} from "node:fs";
import path from "node:path";
import {afterEach, describe, expect, it} from "vitest";
import type {Database} from "../../../src/db/controller.js";
import {openIndexDatabase} from "../../../src/containerIndex/database.js";
import {findEndpoint} from "../../../src/containerIndex/endpoints.js";
import {checkIncompleteIndex, decide} from "../../../src/containerIndex/incomplete.js";
import {Level} from "level";
import {Bucket, ChainFlag, containerIndexKey, containerKey, key, u64be} from "../../../src/db/buckets.js";
import type {BatchOp} from "../../../src/db/controller.js";
import {decodeRecord, encodeRecord} from "../../../src/containerIndex/record.js";
import {containerJson} from "../../../src/containerIndex/service.js";
import {IndexStore, type AcceptItem} from "../../../src/containerIndex/store.js";
import {sha256} from "../../../src/util/sha256.js";
import {containerBytes} from "../../helpers/feed.js";
import {tempDir} from "../../helpers/node.js";

const xtx = findEndpoint("X", "tx")!;
const pblock = findEndpoint("P", "block")!;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function item(endpoint = xtx, n = 0): AcceptItem {
  const bytes = containerBytes(endpoint.name, "x", n);
  return {endpoint, id: sha256(bytes), bytes, timestampNs: 1_700_000_000_123_456_789n + BigInt(n)};
}

/** A record as written before checksums were stored: id ‖ timestamp ns ‖ bytes. */
function encodeRecordV1(it: AcceptItem): Uint8Array {
  const out = new Uint8Array(40 + it.bytes.length);
  out.set(it.id, 0);
  new DataView(out.buffer).setBigUint64(32, it.timestampNs);
  out.set(it.bytes, 40);
  return out;
}

/** A record as written now, with its checksum. */
const encodeRecordV2 = (it: AcceptItem): Uint8Array => encodeRecord({...it, checksum: sha256(it.bytes).subarray(28)});

/** The records of containers stored at indexes 0, 1, ... of X/tx, in the given layout. */
const recordOps = (
  items: AcceptItem[],
  encode: (it: AcceptItem, n: number) => Uint8Array = encodeRecordV2,
): BatchOp[] => items.map((it, n) => ({type: "put", key: containerKey(xtx.id, BigInt(n)), value: encode(it, n)}));

/** The ID keys of containers stored at indexes 0, 1, ... of X/tx. */
const idKeys = (items: AcceptItem[]): BatchOp[] =>
  items.map((it, n) => ({type: "put", key: containerIndexKey(xtx.id, it.id), value: u64be(BigInt(n))}));

/** The hex checksum, computed independently of the code under test. */
const hexChecksum = (bytes: Uint8Array): string =>
  createHash("sha256").update(bytes).digest().subarray(28).toString("hex");

async function open(dir = tempDir()): Promise<{db: Database; store: IndexStore; dir: string}> {
  dirs.push(dir);
  const db = await openIndexDatabase(dir);
  return {db, store: await IndexStore.open(db), dir};
}

describe("IndexStore", () => {
  it("stores each record's hex checksum: the one the feed gives, or computed", async () => {
    const {db, store} = await open();
    // The feed's checksum is stored as given (the sources check it against the bytes; the store does not
    // recompute it): a value no sha256 gives shows it is the one served.
    const given = {...item(xtx, 0), checksum: Uint8Array.of(0xde, 0xad, 0xbe, 0xef)};
    await store.accept([given, item(xtx, 1)], null);
    const [c0, c1] = await store.index(xtx).getRange(0n, 2);
    expect(Buffer.from(c0!.checksum!).toString("hex")).toBe("deadbeef");
    expect(containerJson(c0!, "hex")).toContain(`${Buffer.from(c0!.bytes).toString("hex")}deadbeef"`);
    expect(Buffer.from(c1!.checksum!).toString("hex")).toBe(hexChecksum(c1!.bytes));
    expect(containerJson(c1!, "hex")).toContain(`${Buffer.from(c1!.bytes).toString("hex")}${hexChecksum(c1!.bytes)}"`);
    expect([c0!.timestampNs, c1!.timestampNs]).toEqual([item(xtx, 0).timestampNs, item(xtx, 1).timestampNs]);
    await db.close();
  });

  it("decodes both record layouts; below the layout boundary a set top bit is a timestamp, not the checksum flag", () => {
    const it0 = item(xtx, 3);
    const old = decodeRecord(encodeRecordV1(it0), 3n, 4n);
    expect(old).toMatchObject({timestampNs: it0.timestampNs, index: 3n, checksum: null});
    expect(Buffer.from(old.bytes).equals(Buffer.from(it0.bytes))).toBe(true);
    expect(containerJson(old, "hex")).toContain(`${Buffer.from(it0.bytes).toString("hex")}${hexChecksum(it0.bytes)}"`);
    const now = decodeRecord(encodeRecordV2(it0), 4n, 4n);
    expect(Buffer.from(now.checksum!).toString("hex")).toBe(hexChecksum(it0.bytes));
    expect(containerJson(now, "hex")).toBe(containerJson({...old, index: 4n}, "hex"));
    // Earlier versions stored any u64 timestamp: year 2300 has the top bit set, and is read back exactly.
    const y2300 = {...it0, timestampNs: 10_413_792_000_000_000_000n};
    expect(y2300.timestampNs >= 1n << 63n).toBe(true);
    const far = decodeRecord(encodeRecordV1(y2300), 3n, 4n);
    expect(far).toMatchObject({timestampNs: y2300.timestampNs, checksum: null});
    expect(Buffer.from(far.bytes).equals(Buffer.from(it0.bytes))).toBe(true);
    // New records keep timestamps below 2^63 ns (Go's UnixNano range), so the top bit is free for the flag.
    expect(() => encodeRecord({...it0, timestampNs: 1n << 63n, checksum: new Uint8Array(4)})).toThrow(RangeError);
    expect(() => encodeRecord({...it0, timestampNs: -1n, checksum: new Uint8Array(4)})).toThrow(RangeError);
    expect(() => encodeRecord({...it0, checksum: new Uint8Array(32)})).toThrow(RangeError);
  });

  it("records where checksums start at first open; records of both layouts read back in one range", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // A database as the last version without checksums left it: layout-1 records, one with a year-2300 timestamp.
    const items = Array.from({length: 6}, (_, n) => item(xtx, n));
    items[4] = {...items[4]!, timestampNs: 10_413_792_000_000_000_000n};
    const db0 = await openIndexDatabase(dir);
    await db0.writeContainers(recordOps(items, encodeRecordV1));
    await db0.writeMain([...idKeys(items), {type: "put", key: key(Bucket.nextIndex, xtx.id), value: u64be(6n)}]);
    await db0.close();

    const {db, store} = await open(dir);
    expect(store.index(xtx).checksumsFrom).toBe(6n);
    expect(store.index(pblock).checksumsFrom).toBe(0n);
    await store.accept(
      [6, 7].map((n) => item(xtx, n)),
      null,
    );
    await db.close();
    // The boundary is kept: reopened, old and new records read back as written, in one range.
    const {db: db2, store: store2} = await open(dir);
    const idx = store2.index(xtx);
    expect(idx.checksumsFrom).toBe(6n);
    const all = [...items, item(xtx, 6), item(xtx, 7)];
    const got = await idx.getRange(0n, 10);
    expect(got.map((c) => c.timestampNs)).toEqual(all.map((it) => it.timestampNs));
    expect(got.map((c) => c.checksum === null)).toEqual([true, true, true, true, true, true, false, false]);
    got.forEach((c, n) => {
      expect(Buffer.from(c.bytes).equals(Buffer.from(all[n]!.bytes))).toBe(true);
      expect(containerJson(c, "hex")).toContain(
        `${Buffer.from(all[n]!.bytes).toString("hex")}${hexChecksum(all[n]!.bytes)}"`,
      );
    });
    await db2.close();
  });

  it("writes no boundary when the containers store does not match (restored, the right one is found)", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const items = Array.from({length: 5}, (_, n) => item(xtx, n));
    const db0 = await openIndexDatabase(dir);
    await db0.writeContainers(recordOps(items));
    await db0.writeMain([...idKeys(items), {type: "put", key: key(Bucket.nextIndex, xtx.id), value: u64be(5n)}]);
    await db0.close();
    // The containers folder goes missing: the open fails and leaves no boundary behind.
    renameSync(path.join(dir, "containers"), path.join(dir, "containers.away"));
    const db1 = await openIndexDatabase(dir);
    await expect(IndexStore.open(db1)).rejects.toThrow(/was .*containers\/X-tx removed or replaced/);
    await db1.close();
    // Nor when a containers store from another database holds as many records, or more.
    const other = tempDir();
    dirs.push(other);
    const dbOther = await openIndexDatabase(other);
    const foreign = Array.from({length: 7}, (_, n) => item(pblock, n)).map((it) => ({...it, endpoint: xtx}));
    await dbOther.writeContainers(recordOps(foreign));
    await dbOther.close();
    rmSync(path.join(dir, "containers"), {recursive: true, force: true});
    renameSync(path.join(other, "containers"), path.join(dir, "containers"));
    const db2 = await openIndexDatabase(dir);
    await expect(IndexStore.open(db2)).rejects.toThrow(
      /has no matching record 4: was .*containers\/X-tx removed or replaced/,
    );
    await db2.close();
    rmSync(path.join(dir, "containers"), {recursive: true, force: true});
    renameSync(path.join(dir, "containers.away"), path.join(dir, "containers"));
    const {db, store} = await open(dir);
    expect(store.index(xtx).checksumsFrom).toBe(0n);
    const got = await store.index(xtx).getRange(0n, 5);
    expect(got.map((c) => c.timestampNs)).toEqual(items.map((it) => it.timestampNs));
    expect(got.every((c, n) => Buffer.from(c.bytes).equals(Buffer.from(items[n]!.bytes)))).toBe(true);
    await db.close();
  });

  it("finds where checksums start in a database that stored them without recording it", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // Layout-1 records 0-36 (one with a top-bit timestamp), records with checksums from 37, no boundary written.
    const items = Array.from({length: 50}, (_, n) => item(xtx, n));
    items[20] = {...items[20]!, timestampNs: 10_413_792_000_000_000_000n};
    const db0 = await openIndexDatabase(dir);
    await db0.writeContainers(recordOps(items, (it, n) => (n < 37 ? encodeRecordV1(it) : encodeRecordV2(it))));
    await db0.writeMain([...idKeys(items), {type: "put", key: key(Bucket.nextIndex, xtx.id), value: u64be(50n)}]);
    await db0.close();
    const {db, store} = await open(dir);
    const idx = store.index(xtx);
    expect(idx.checksumsFrom).toBe(37n);
    const got = await idx.getRange(0n, 50);
    expect(got.map((c) => c.timestampNs)).toEqual(items.map((it) => it.timestampNs));
    got.forEach((c, n) => expect(Buffer.from(c.bytes).equals(Buffer.from(items[n]!.bytes))).toBe(true));
    await db.close();
  });

  it("appends from index 0, maps ids back, and reads ranges truncated at the end", async () => {
    const {db, store} = await open();
    const items = [0, 1, 2, 3].map((n) => item(xtx, n));
    const r = await store.accept(items, {key: "f", value: Uint8Array.of(9)});
    expect(r.accepted).toHaveLength(4);
    const idx = store.index(xtx);
    expect(idx.next).toBe(4n);
    const c2 = (await idx.getByIndex(2n))!;
    expect(Buffer.from(c2.bytes).equals(Buffer.from(items[2]!.bytes))).toBe(true);
    expect(c2.timestampNs).toBe(items[2]!.timestampNs);
    expect(await idx.getIndex(items[3]!.id)).toBe(3n);
    expect(await idx.getByIndex(4n)).toBeNull();
    expect((await idx.getRange(2n, 10)).map((c) => c.index)).toEqual([2n, 3n]);
    expect(store.index(pblock).next).toBe(0n);
    expect([...(await store.feedPosition("f"))!]).toEqual([9]);
    await db.close();
  });

  it("skips duplicates (already stored or twice in one batch) and still advances the position", async () => {
    const {db, store} = await open();
    await store.accept([item(xtx, 0), item(xtx, 1)], {key: "f", value: Uint8Array.of(1)});
    const r = await store.accept([item(xtx, 1), item(xtx, 2), item(xtx, 2), item(pblock, 1)], {
      key: "f",
      value: Uint8Array.of(2),
    });
    expect(r.duplicates).toBe(2);
    expect(r.accepted).toHaveLength(2);
    expect(store.index(xtx).next).toBe(3n);
    // The same ID on another endpoint is a different container.
    expect(store.index(pblock).next).toBe(1n);
    expect([...(await store.feedPosition("f"))!]).toEqual([2]);
    await db.close();
  });

  it("pipelined accepts: a batch queued behind one still writing sees its IDs as duplicates", async () => {
    const {store} = await open();
    // Issued together: the second batch's lookups start before the first is written.
    const a = store.accept(
      [0, 1, 2].map((n) => item(xtx, n)),
      {key: "f", value: Uint8Array.of(1)},
    );
    const b = store.accept(
      [2, 3, 1, 4].map((n) => item(xtx, n)),
      {key: "f", value: Uint8Array.of(2)},
    );
    const c = store.accept(
      [4, 5].map((n) => item(xtx, n)),
      {key: "f", value: Uint8Array.of(3)},
    );
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(ra.accepted).toHaveLength(3);
    expect(rb).toMatchObject({duplicates: 2});
    expect(rb.accepted.map((it) => it.id)).toEqual([3, 4].map((n) => item(xtx, n).id));
    expect(rc).toMatchObject({duplicates: 1});
    const idx = store.index(xtx);
    expect(idx.next).toBe(6n);
    for (let n = 0; n < 6; n++) expect(await idx.getIndex(item(xtx, n).id)).toBe(BigInt(n));
    expect([...(await store.feedPosition("f"))!]).toEqual([3]);
  });

  it("pipelined accepts: when one fails, those queued behind it and later ones fail unwritten until resume()", async () => {
    const {store} = await open();
    const fail = (): never => {
      throw new Error("derived writes failed");
    };
    const a = store.accept([item(xtx, 0)], {key: "f", value: Uint8Array.of(1)}, true, fail);
    const b = store.accept([item(xtx, 1)], {key: "f", value: Uint8Array.of(2)});
    await expect(a).rejects.toThrow("derived writes failed");
    await expect(b).rejects.toThrow("not written: an earlier batch of the feed failed to commit");
    expect(store.index(xtx).next).toBe(0n);
    expect(await store.feedPosition("f")).toBeNull();
    // Until the feed has re-read its position and resumes, every accept is refused (one committed now would carry
    // a position past the batches that failed).
    await expect(store.accept([item(xtx, 5)], {key: "f", value: Uint8Array.of(9)})).rejects.toThrow(
      "not written: an earlier batch of the feed failed to commit (derived writes failed); resume from the committed position first",
    );
    expect(await store.feedPosition("f")).toBeNull();
    store.resume();
    // A batch queued behind a failed one fails unwritten; its IDs are then accepted again, not taken as stored.
    const fail2 = store.accept([item(xtx, 7)], null, true, fail);
    const behind = store.accept([item(xtx, 8)], null);
    const behindSettled = behind.then(
      () => "written",
      () => "not written",
    );
    await expect(fail2).rejects.toThrow("derived writes failed");
    expect(await behindSettled).toBe("not written");
    store.resume();
    const retry = store.accept([item(xtx, 8), item(xtx, 7)], null);
    expect(await behindSettled).toBe("not written");
    expect((await retry).accepted.map((it) => it.id)).toEqual([item(xtx, 8).id, item(xtx, 7).id]);
    expect(store.index(xtx).next).toBe(2n);
    // After the failure is seen, the feed restarts from its position: accepts work again.
    const r = await store.accept(
      [0, 1].map((n) => item(xtx, n)),
      {key: "f", value: Uint8Array.of(3)},
    );
    expect(r.accepted).toHaveLength(2);
    expect(store.index(xtx).next).toBe(4n);
  });

  it("a commit that fails after its records were written: they stay unread, and the retry takes their indexes", async () => {
    const {db, store, dir} = await open();
    await store.accept([item(xtx, 0)], {key: "f", value: Uint8Array.of(1)});
    // A derived write that the main store refuses (a container key): the commit fails after the records of x1
    // and x2 were written to the containers store.
    const badCommit = (): BatchOp[] => [{type: "put", key: containerKey(xtx.id, 99n), value: Uint8Array.of(1)}];
    const a = store.accept([item(xtx, 1), item(xtx, 2)], {key: "f", value: Uint8Array.of(2)}, true, badCommit);
    const b = store.accept([item(xtx, 3)], {key: "f", value: Uint8Array.of(3)});
    await expect(a).rejects.toThrow(/written to the main store/);
    await expect(b).rejects.toThrow("not written: an earlier batch of the feed failed to commit");
    const idx = store.index(xtx);
    expect(idx.next).toBe(1n);
    expect(await idx.getByIndex(1n)).toBeNull();
    expect((await idx.getRange(0n, 10)).map((c) => c.index)).toEqual([0n]);
    expect(await idx.getIndex(item(xtx, 1).id)).toBeNull();
    expect([...(await store.feedPosition("f"))!]).toEqual([1]);
    // The feed replays from its position; another container takes index 1 over the unread record.
    store.resume();
    await store.accept([item(xtx, 5)], {key: "f", value: Uint8Array.of(4)});
    await db.close();
    const db2 = await openIndexDatabase(dir);
    const again = IndexStore.open(db2);
    const idx2 = (await again).index(xtx);
    expect(idx2.next).toBe(2n);
    expect((await idx2.getRange(0n, 10)).map((c) => c.id)).toEqual([item(xtx, 0).id, item(xtx, 5).id]);
    expect(await idx2.getIndex(item(xtx, 2).id)).toBeNull();
    await db2.close();
  });

  it("moves container records of the older one-store layout to the containers store at open", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // The layout before the split: records in the main store, next to the ID keys and the next index.
    const old = new Level<Uint8Array, Uint8Array>(dir, {keyEncoding: "view", valueEncoding: "view"});
    await old.open();
    const items = Array.from({length: 25_000}, (_, n) => item(xtx, n));
    const b = old.batch();
    items.forEach((it, n) => {
      b.put(containerKey(xtx.id, BigInt(n)), encodeRecordV1(it));
      b.put(containerIndexKey(xtx.id, it.id), u64be(BigInt(n)));
    });
    b.put(key(Bucket.nextIndex, xtx.id), u64be(BigInt(items.length)));
    await b.write();
    await old.close();

    const db = await openIndexDatabase(dir);
    expect(db.migrated).toBe(items.length);
    const idx = (await IndexStore.open(db)).index(xtx);
    expect(idx.next).toBe(BigInt(items.length));
    expect(idx.checksumsFrom).toBe(BigInt(items.length));
    expect((await idx.getById(items[12_345]!.id))!.index).toBe(12_345n);
    expect((await idx.getRange(24_990n, 1024)).map((c) => c.id)).toEqual(items.slice(24_990).map((it) => it.id));
    await db.close();
    // Nothing is left behind in the main store, and a second open moves nothing.
    const main = new Level<Uint8Array, Uint8Array>(dir, {keyEncoding: "view", valueEncoding: "view"});
    await main.open();
    expect(
      await main.keys({gte: Uint8Array.of(Bucket.container), lt: Uint8Array.of(Bucket.container + 1)}).all(),
    ).toEqual([]);
    await main.close();
    const db2 = await openIndexDatabase(dir);
    expect(db2.migrated).toBe(0);
    await db2.close();
  });

  it("moves the records of the one-containers-store layout to a store per endpoint at open, resuming an interrupted move", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // The layout before: every endpoint's records in one LevelDB at <dir>/containers, the rest in <dir>.
    const xs = Array.from({length: 12_000}, (_, n) => item(xtx, n));
    const ps = Array.from({length: 3_000}, (_, n) => item(pblock, n));
    const main = new Level<Uint8Array, Uint8Array>(dir, {keyEncoding: "view", valueEncoding: "view"});
    await main.open();
    const m = main.batch();
    for (const [e, list] of [
      [xtx, xs],
      [pblock, ps],
    ] as const) {
      list.forEach((it, n) => m.put(containerIndexKey(e.id, it.id), u64be(BigInt(n))));
      m.put(key(Bucket.nextIndex, e.id), u64be(BigInt(list.length)));
    }
    await m.write();
    await main.close();
    const one = new Level<Uint8Array, Uint8Array>(path.join(dir, "containers"), {
      keyEncoding: "view",
      valueEncoding: "view",
    });
    await one.open();
    const c = one.batch();
    for (const [e, list] of [
      [xtx, xs],
      [pblock, ps],
    ] as const)
      list.forEach((it, n) => c.put(containerKey(e.id, BigInt(n)), encodeRecordV2(it)));
    await c.write();
    await one.close();
    // A move interrupted after the rename, with the first P records already in their new store.
    renameSync(path.join(dir, "containers"), path.join(dir, "containers.moving"));
    const pStore = new Level<Uint8Array, Uint8Array>(path.join(dir, "containers", "P-block"), {
      keyEncoding: "view",
      valueEncoding: "view",
    });
    await pStore.open();
    await pStore.batch(
      ps
        .slice(0, 100)
        .map((it, n) => ({type: "put" as const, key: containerKey(pblock.id, BigInt(n)), value: encodeRecordV2(it)})),
    );
    await pStore.close();

    const db = await openIndexDatabase(dir);
    expect(db.migrated).toBe(xs.length + ps.length);
    expect(existsSync(path.join(dir, "containers.moving"))).toBe(false);
    expect(readdirSync(path.join(dir, "containers")).sort()).toEqual([
      "C-block",
      "P-block",
      "X-block",
      "X-tx",
      "X-vtx",
    ]);
    const store = await IndexStore.open(db);
    expect((await store.index(xtx).getById(xs[11_999]!.id))!.index).toBe(11_999n);
    expect((await store.index(pblock).getRange(0n, 1024)).map((r) => r.id)).toEqual(
      ps.slice(0, 1024).map((it) => it.id),
    );
    expect((await store.index(xtx).getRange(10_000n, 1024)).map((r) => r.id)).toEqual(
      xs.slice(10_000, 11_024).map((it) => it.id),
    );
    // New containers go on after the moved ones, and a second open moves nothing.
    const more = item(xtx, 12_000);
    await store.accept([more], null);
    await db.close();
    const db2 = await openIndexDatabase(dir);
    expect(db2.migrated).toBe(0);
    const store2 = await IndexStore.open(db2);
    expect((await store2.index(xtx).getByIndex(12_000n))!.id).toEqual(more.id);
    expect(store2.index(pblock).next).toBe(BigInt(ps.length));
    await db2.close();
  });

  it("reads synchronously while reads are fast, and asynchronously for a while after slow ones in a row (per store)", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // Every read counts as slow here: the third in a row of a store switches that store to asynchronous reads.
    const db = await openIndexDatabase(dir, {slowReadMs: -1});
    const store = await IndexStore.open(db);
    const items = [0, 1, 2, 3, 4].map((n) => item(xtx, n));
    await store.accept(items, null);
    const idx = store.index(xtx);
    const read = async (n: number): Promise<Uint8Array | undefined> => (await idx.getByIndex(BigInt(n)))?.id;
    expect(await read(0)).toEqual(items[0]!.id);
    // A read of the other store in between neither counts nor resets (a hot ID lookup, then a cold record).
    expect(await idx.getIndex(items[4]!.id)).toBe(4n);
    expect(await read(1)).toEqual(items[1]!.id);
    expect(db.asyncReadsLeft).toEqual({main: 0, containers: 0});
    expect(await read(2)).toEqual(items[2]!.id);
    expect(db.asyncReadsLeft).toEqual({main: 0, containers: 1000});
    expect(await read(3)).toEqual(items[3]!.id);
    expect((await idx.getById(items[4]!.id))?.index).toBe(4n);
    expect(await idx.getByIndex(9n)).toBeNull();
    expect(db.asyncReadsLeft).toEqual({main: 0, containers: 998});
    await db.close();
    // A closed database refuses reads either way, with level's error.
    await expect(idx.getByIndex(0n)).rejects.toThrow(/not open/);
  });

  it("refuses to open when the containers store lacks records the main store counts (folder removed)", async () => {
    const {db, store, dir} = await open();
    await store.accept([item(xtx, 0), item(xtx, 1)], null);
    await db.close();
    rmSync(path.join(dir, "containers"), {recursive: true, force: true});
    const db2 = await openIndexDatabase(dir);
    await expect(IndexStore.open(db2)).rejects.toThrow(
      `the index X/tx counts 2 containers but the containers store has no matching record 1: was ${dir}/containers/X-tx removed or replaced?`,
    );
    await db2.close();
  });

  it("keeps everything across a reopen", async () => {
    const {db, store, dir} = await open();
    await store.accept([item(xtx, 0), item(xtx, 1)], {key: "f", value: Uint8Array.of(7)});
    await db.close();
    const db2 = await openIndexDatabase(dir);
    const again = await IndexStore.open(db2);
    expect(again.index(xtx).next).toBe(2n);
    expect(await again.index(xtx).getIndex(item(xtx, 1).id)).toBe(1n);
    expect([...(await again.feedPosition("f"))!]).toEqual([7]);
    await db2.close();
  });

  it("refuses a second process on the same database with a clear error", async () => {
    const {db, dir} = await open();
    await expect(openIndexDatabase(dir)).rejects.toThrow(/is locked by another process/);
    await db.close();
  });

  it("writes only the position when storing is off", async () => {
    const {db, store} = await open();
    await store.accept([item(xtx, 0)], {key: "f", value: Uint8Array.of(3)}, false);
    expect(store.index(xtx).next).toBe(0n);
    expect([...(await store.feedPosition("f"))!]).toEqual([3]);
    await db.close();
  });
});

describe("incomplete-index decision (docs/api/index.md, Incomplete index)", () => {
  const fresh = {incomplete: false, previouslyIndexed: false};
  it("indexing on a fresh database marks the chain indexed", () => {
    expect(decide(true, false, false, fresh)).toEqual({ok: true, markIncomplete: false, markPreviouslyIndexed: true});
  });
  it("indexing off marks the chain incomplete, and is refused on an indexed database without allow-incomplete", () => {
    expect(decide(false, false, false, fresh)).toEqual({ok: true, markIncomplete: true, markPreviouslyIndexed: false});
    const r = decide(false, false, true, {incomplete: false, previouslyIndexed: true});
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(
      /^running would cause index to become incomplete but incomplete indices are disabled.*--index-enabled.*--index-allow-incomplete/,
    );
    expect(decide(false, true, true, {incomplete: false, previouslyIndexed: true}).ok).toBe(true);
  });
  it("turning indexing on after a run without it needs allow-incomplete", () => {
    const r = decide(true, false, true, {incomplete: true, previouslyIndexed: false});
    expect(!r.ok && r.message).toMatch(
      /^index is incomplete but incomplete indices are disabled.*--index-allow-incomplete/,
    );
    expect(decide(true, true, true, {incomplete: true, previouslyIndexed: false}).ok).toBe(true);
  });
});

describe("checkIncompleteIndex on a real database", () => {
  it("writes no flag when any chain refuses (a refused run leaves the database as it was)", async () => {
    const {db, store} = await open();
    await store.setFlag("X", ChainFlag.previouslyIndexed);
    await expect(checkIncompleteIndex(store, false, false)).rejects.toThrow(
      /^running would cause index to become incomplete/,
    );
    expect(await store.getFlag("P", ChainFlag.incomplete)).toBe(false);
    expect(await store.getMeta("hasRun")).toBeNull();
    await checkIncompleteIndex(store, false, true);
    for (const c of ["P", "X", "C"] as const) expect(await store.getFlag(c, ChainFlag.incomplete)).toBe(true);
    expect(await store.getMeta("hasRun")).not.toBeNull();
    await db.close();
  });
});
