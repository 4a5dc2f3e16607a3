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
  /**
   * Longest line accepted, bytes: a container is at most a few MiB, so a longer "line" is garbage; it is reported
   * once, with its number, and skipped up to its newline.
   */
  maxLineBytes: number;
}

export const defaultFileFeedOptions: Omit<FileFeedOptions, "path"> = {
  batchSize: 1000,
  chunkSize: 1 << 20,
  pollMs: 100,
  maxLineBytes: 64 * 1024 * 1024,
};

export interface FileFeedModules {
  chains: ChainRegistry;
  status: FeedStatus;
  logger: Logger;
  bad: BadInputReporter;
}

/**
 * Position: byte offset after the last committed line, that line's number, and the file's inode (so a file
 * replaced while avaext was stopped is read from its start rather than from an offset into other content).
 */
export function encodeFilePosition(offset: number, lineNo: number, ino: bigint): Uint8Array {
  const b = new Uint8Array(24);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(offset));
  v.setBigUint64(8, BigInt(lineNo));
  v.setBigUint64(16, ino);
  return b;
}

/** Reads a position; one written before the inode was stored (16 bytes) has `ino` null. */
export function decodeFilePosition(b: Uint8Array): {offset: number; lineNo: number; ino: bigint | null} {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return {
    offset: Number(v.getBigUint64(0)),
    lineNo: Number(v.getBigUint64(8)),
    ino: b.length >= 24 ? v.getBigUint64(16) : null,
  };
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

  async run(
    position: Uint8Array | null,
    sink: (batch: FeedBatch) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    const start = position ? decodeFilePosition(position) : {offset: 0, lineNo: 0, ino: null};
    let {offset, lineNo} = start;
    let expectIno = start.ino;
    const {status, logger} = this.modules;
    let fh: FileHandle | null = null;
    let ino = 0n;
    let pending = Buffer.alloc(0);
    let reported = false;
    /** Inside an over-long line, after reporting it: bytes are dropped until its newline. */
    let skipping = false;
    // Duplicates are skipped by ID, so reading a replaced or truncated file from its start loses nothing and
    // indexes nothing twice (as `tail -f` does on truncation, rather than waiting for the old offset forever).
    const restartFile = (why: string, fields: Record<string, unknown>): void => {
      logger.warn(
        {file: this.file, ...fields},
        `${why}; reading it from the start (containers already indexed are skipped)`,
      );
      if (pending.length > 0)
        this.modules.bad.badLine(lineNo + 1, "incomplete last line of a replaced or truncated file");
      offset = 0;
      lineNo = 0;
      pending = Buffer.alloc(0);
      skipping = false;
    };
    try {
      while (!signal.aborted) {
        status.sent();
        if (fh === null) {
          try {
            fh = await open(this.file, "r");
            ino = (await fh.stat({bigint: true})).ino;
          } catch (e) {
            await fh?.close();
            fh = null;
            status.failed();
            if (!reported)
              logger.warn({file: this.file, err: (e as Error).message}, "feed file not readable; waiting for it");
            reported = true;
            await sleep(Math.max(this.opts.pollMs, 500), signal);
            continue;
          }
          reported = false;
          if (expectIno !== null && expectIno !== ino && offset > 0)
            restartFile("feed file was replaced", {position: offset});
          expectIno = null;
        }
        const size = (await fh.stat()).size;
        status.received();
        if (size < offset + pending.length) {
          restartFile("feed file was truncated", {size, position: offset + pending.length});
          continue;
        }
        if (size === offset + pending.length) {
          status.setCaughtUp(true);
          await sleep(this.opts.pollMs, signal);
          // A replaced file (rotation): the old one has been read to its end; the new one is read from its start.
          if (!(await sameFile(fh, this.file))) {
            await fh.close();
            fh = null;
            restartFile("feed file was replaced", {position: offset});
          }
          continue;
        }
        const want = Math.min(this.opts.chunkSize, size - offset - pending.length);
        const buf = Buffer.allocUnsafe(want);
        const {bytesRead} = await fh.read(buf, 0, want, offset + pending.length);
        if (bytesRead === 0) continue;
        let data =
          pending.length === 0 ? buf.subarray(0, bytesRead) : Buffer.concat([pending, buf.subarray(0, bytesRead)]);
        if (skipping) {
          // The rest of an over-long line, already reported: dropped up to and including its newline.
          const nl = data.indexOf(0x0a);
          offset += nl < 0 ? data.length : nl + 1;
          skipping = nl < 0;
          pending = Buffer.alloc(0);
          if (nl < 0) continue;
          data = data.subarray(nl + 1);
          if (data.length === 0) {
            await sink({items: [], position: encodeFilePosition(offset, lineNo, ino)});
            continue;
          }
        }
        // Complete lines end at the last newline; the rest waits for more bytes.
        const lastNl = data.lastIndexOf(0x0a);
        if (lastNl < 0) {
          if (data.length > this.opts.maxLineBytes) {
            lineNo++;
            this.modules.bad.badLine(lineNo, `line longer than ${this.opts.maxLineBytes} bytes`);
            offset += data.length;
            pending = Buffer.alloc(0);
            skipping = true;
            await sink({items: [], position: encodeFilePosition(offset, lineNo, ino)});
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
            await sink({items, position: encodeFilePosition(offset + start, lineNo, ino)});
            items = [];
            if (signal.aborted) return;
          }
        }
        offset += lastNl + 1;
        pending = data.subarray(lastNl + 1);
        await sink({items, position: encodeFilePosition(offset, lineNo, ino)});
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
