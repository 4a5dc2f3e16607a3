/**
 * `--feed file:PATH`: newline-delimited JSON, one container a line, followed like `tail -f`. The position is the
 * byte offset after the last complete line plus that line's number, so a restart resumes exactly and bad lines
 * keep their numbers. A last line without its newline is still being written: it waits.
 */
import {open, stat, type FileHandle} from "node:fs/promises";
import path from "node:path";
import type {ChainRegistry} from "../chains/index.js";
import type {Logger} from "../logger/index.js";
import {parseFeedLine} from "./line.js";
import type {FeedStatus} from "./status.js";
import {sleep, type BadInputReporter, type FeedBatch, type FeedItem, type FeedSource} from "./types.js";

export interface FileFeedOptions {
  path: string;
  /** Most containers per committed batch. */
  batchSize: number;
  /** Bytes read per read() call. */
  chunkSize: number;
  /** How often an idle file is checked for growth, ms. */
  pollMs: number;
}

export const defaultFileFeedOptions: Omit<FileFeedOptions, "path"> = {batchSize: 1000, chunkSize: 1 << 20, pollMs: 100};

export interface FileFeedModules {
  chains: ChainRegistry;
  status: FeedStatus;
  logger: Logger;
  bad: BadInputReporter;
}

/** Longest line accepted: a container is at most a few MiB; a longer "line" is garbage, skipped in one piece. */
const MAX_LINE = 64 * 1024 * 1024;

export function encodeFilePosition(offset: number, lineNo: number): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(offset));
  v.setBigUint64(8, BigInt(lineNo));
  return b;
}

export function decodeFilePosition(b: Uint8Array): {offset: number; lineNo: number} {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return {offset: Number(v.getBigUint64(0)), lineNo: Number(v.getBigUint64(8))};
}

export class FileFeed implements FeedSource {
  readonly key: string;
  private readonly file: string;

  constructor(
    private readonly opts: FileFeedOptions,
    private readonly modules: FileFeedModules,
  ) {
    this.file = path.resolve(opts.path);
    this.key = `file:${this.file}`;
  }

  async run(position: Uint8Array | null, sink: (batch: FeedBatch) => Promise<void>, signal: AbortSignal): Promise<void> {
    let {offset, lineNo} = position ? decodeFilePosition(position) : {offset: 0, lineNo: 0};
    const {status, logger} = this.modules;
    let fh: FileHandle | null = null;
    let pending = Buffer.alloc(0);
    let reported = false;
    try {
      while (!signal.aborted) {
        status.sent();
        if (fh === null) {
          try {
            fh = await open(this.file, "r");
          } catch (e) {
            status.failed();
            if (!reported) logger.warn({file: this.file, err: (e as Error).message}, "feed file not readable; waiting for it");
            reported = true;
            await sleep(Math.max(this.opts.pollMs, 500), signal);
            continue;
          }
          reported = false;
        }
        const size = (await fh.stat()).size;
        status.received();
        if (size < offset + pending.length) {
          logger.error({file: this.file, size, offset}, "feed file shrank below the position already indexed; waiting for it to grow");
          await sleep(1000, signal);
          continue;
        }
        if (size === offset + pending.length) {
          status.setCaughtUp(true);
          await sleep(this.opts.pollMs, signal);
          // A replaced file (rotation) is reopened.
          if (!(await sameFile(fh, this.file))) {
            await fh.close();
            fh = null;
          }
          continue;
        }
        const want = Math.min(this.opts.chunkSize, size - offset - pending.length);
        const buf = Buffer.allocUnsafe(want);
        const {bytesRead} = await fh.read(buf, 0, want, offset + pending.length);
        if (bytesRead === 0) continue;
        const data = pending.length === 0 ? buf.subarray(0, bytesRead) : Buffer.concat([pending, buf.subarray(0, bytesRead)]);
        // Complete lines end at the last newline; the rest waits for more bytes.
        const lastNl = data.lastIndexOf(0x0a);
        if (lastNl < 0) {
          if (data.length > MAX_LINE) {
            lineNo++;
            this.modules.bad.badLine(lineNo, `line longer than ${MAX_LINE} bytes`);
            offset += data.length;
            pending = Buffer.alloc(0);
            await sink({items: [], position: encodeFilePosition(offset, lineNo)});
          } else {
            pending = data;
            if (offset + data.length >= size) {
              status.setCaughtUp(true);
              await sleep(this.opts.pollMs, signal);
            }
          }
          continue;
        }
        status.setCaughtUp(false);
        let items: FeedItem[] = [];
        let start = 0;
        while (start <= lastNl) {
          const nl = data.indexOf(0x0a, start);
          const raw = data.toString("utf8", start, nl).replace(/\r$/, "");
          lineNo++;
          start = nl + 1;
          if (raw.trim() !== "") {
            const r = parseFeedLine(raw, this.modules.chains);
            if (r.ok) items.push(r.item);
            else this.modules.bad.badLine(lineNo, r.reason);
          }
          if (items.length >= this.opts.batchSize) {
            await sink({items, position: encodeFilePosition(offset + start, lineNo)});
            items = [];
            if (signal.aborted) return;
          }
        }
        offset += lastNl + 1;
        pending = data.subarray(lastNl + 1);
        await sink({items, position: encodeFilePosition(offset, lineNo)});
      }
    } finally {
      await fh?.close();
    }
  }
}

async function sameFile(fh: FileHandle, file: string): Promise<boolean> {
  try {
    const [a, b] = await Promise.all([fh.stat(), stat(file)]);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
