/**
 * A new PGlite store starts from an empty cluster made at build time (`npm run build`, scripts/pglite-template.mjs),
 * not from an initdb in this process: initdb in PGlite's WebAssembly heap took a new store's process to 437 MB of
 * RSS before it held anything, and the heap never shrinks (docs/operations/memory.md). The dump is of the PGlite
 * build installed, named by its version: another version's, or none, means an initdb.
 *
 * A store on disk gets the dump's files written into its directory here, before PGlite opens it as an existing
 * cluster. Given to PGlite instead (`loadDataDir`), the dump is unpacked whole in memory (40 MB of files, copied
 * again into its file system): that left about 100 MB more in the process's malloc arenas for as long as it ran
 * (a fresh store opened in a bare process: 389 MB this way against 290 MB for the same cluster reopened).
 */
import {
  closeSync,
  createReadStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import {createRequire} from "node:module";
import path from "node:path";
import {pipeline} from "node:stream/promises";
import {createGunzip} from "node:zlib";
import {packageInfo} from "../../util/packageInfo.js";

/** Where the build writes the empty cluster of this PGlite version. */
export function pgliteTemplateFile(): string {
  return path.join(packageInfo().root, "dist", `pglite-empty-${pgliteVersion()}.tar.gz`);
}

/** The installed PGlite's version, from its package.json (which the package does not export: found from its entry). */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const p = path.join(dir, "package.json");
    if (existsSync(p)) {
      const json = JSON.parse(readFileSync(p, "utf8")) as {name?: string; version?: string};
      if (json.name === "@electric-sql/pglite" && json.version) return json.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

/**
 * Makes `dataDir` the build's empty cluster if it holds none and the dump exists; true if it holds a cluster now.
 * False in memory (tests bring their own template) or without a dump (then PGlite runs initdb). `file`: the dump.
 */
export async function seedNewStore(dataDir: string | null, file = pgliteTemplateFile()): Promise<boolean> {
  if (dataDir === null) return false;
  if (existsSync(path.join(dataDir, "PG_VERSION"))) return true;
  if (!existsSync(file)) return false;
  // pipeline, not pipe: an error of the read reaches the extraction (which would otherwise wait for more), and an
  // error of the extraction closes the file.
  await pipeline(createReadStream(file), createGunzip(), (archive: AsyncIterable<Buffer>) =>
    untarInto(archive, dataDir),
  );
  return true;
}

/**
 * Writes a ustar archive's directories and regular files under `root`, as the archive streams in: no more than a
 * chunk and a header are held at once. PG_VERSION, which marks a directory as a cluster, is written last and by
 * rename: a process killed part way leaves no PG_VERSION, so the next start writes the files again instead of
 * opening half a cluster. Every file and directory is flushed to disk (fsync) before that rename, and the rename
 * itself after it, so a machine that loses power part way does not leave a PG_VERSION over files it never wrote.
 */
export async function untarInto(archive: AsyncIterable<Buffer>, root: string): Promise<void> {
  let pending: Buffer = Buffer.alloc(0);
  let fd: number | null = null;
  let left = 0;
  let pad = 0;
  let version = null as Buffer[] | null;
  let ended = false;
  /** The archive's byte at which the buffer being read starts. */
  let base = 0;
  /** The directories written into, flushed once their files are (their entries are what a power loss drops). */
  const dirs = new Set<string>([root]);
  const field = (h: Buffer, at: number, len: number): string => {
    const raw = h.subarray(at, at + len);
    const end = raw.indexOf(0);
    return raw.toString("utf8", 0, end < 0 ? len : end);
  };
  const header = (h: Buffer, offset: number): void => {
    const prefix = field(h, 345, 155);
    const name = (prefix ? `${prefix}/` : "") + field(h, 0, 100);
    const size = parseInt(field(h, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(h[156]!);
    const rel = path.normalize(name.replace(/^\/+/, ""));
    if (!Number.isSafeInteger(size) || size < 0 || rel.startsWith("..") || path.isAbsolute(rel)) {
      throw new Error(`the PGlite template has an unreadable entry at byte ${offset}: ${JSON.stringify(name)}`);
    }
    const target = path.join(root, rel);
    if (type === "5") {
      mkdirSync(target, {recursive: true});
      // Its own entries, and its entry in the parent (which may exist only by mkdir's recursion).
      dirs.add(target);
      dirs.add(path.dirname(target));
    } else if (type === "0" || type === "\0") {
      mkdirSync(path.dirname(target), {recursive: true});
      dirs.add(path.dirname(target));
      if (rel === "PG_VERSION") version = [];
      else fd = openSync(target, "w");
      left = size;
      pad = (512 - (size % 512)) % 512;
      if (size === 0) closeFile();
    } else
      throw new Error(
        `the PGlite template's entry ${JSON.stringify(name)} is of type ${JSON.stringify(type)}: only files and directories are expected`,
      );
  };
  const closeFile = (sync = true): void => {
    if (fd === null) return;
    try {
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
      fd = null;
    }
  };
  try {
    for await (const chunk of archive) {
      if (ended) continue;
      const buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      while (at < buf.length) {
        if (left > 0) {
          const n = Math.min(left, buf.length - at);
          if (fd !== null) writeSync(fd, buf, at, n);
          else version?.push(Buffer.from(buf.subarray(at, at + n)));
          at += n;
          left -= n;
          if (left === 0) closeFile();
        } else if (pad > 0) {
          const n = Math.min(pad, buf.length - at);
          at += n;
          pad -= n;
        } else if (buf.length - at < 512) {
          break;
        } else {
          const h = buf.subarray(at, at + 512);
          // A zero block ends the archive (two of them, by the format; one is enough to stop at).
          if (h.every((b) => b === 0)) {
            ended = true;
            break;
          }
          header(h, base + at);
          at += 512;
        }
      }
      base += at;
      pending = ended ? Buffer.alloc(0) : Buffer.from(buf.subarray(at));
    }
  } finally {
    // On an error the file is closed unflushed: the store is not marked a cluster, and is written again.
    closeFile(false);
  }
  if (!ended || left > 0) throw new Error("the PGlite template ends part way through an entry");
  if (version === null) throw new Error("the PGlite template has no PG_VERSION");
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) syncPath(d);
  const marker = path.join(root, "PG_VERSION.new");
  fd = openSync(marker, "w");
  try {
    writeSync(fd, Buffer.concat(version));
    closeFile();
  } finally {
    // Closed unflushed on a failed write (ENOSPC): there is no PG_VERSION, so the store is written again.
    closeFile(false);
  }
  renameSync(marker, path.join(root, "PG_VERSION"));
  syncPath(root);
}

/**
 * fsync of a directory (its entries), as PostgreSQL's fsync_fname_ext does for one: where a platform or filesystem
 * cannot open or fsync a directory (Windows: EISDIR/EPERM/EACCES; some FUSE and network mounts: EINVAL), that is
 * not an error, as PostgreSQL ignores it too (src/backend/storage/file/fd.c); an I/O error (EIO, ENOSPC) is.
 */
function syncPath(p: string): void {
  let d: number;
  try {
    d = openSync(p, "r");
  } catch (e) {
    if (DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? "")) return;
    throw e;
  }
  try {
    fsyncSync(d);
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? "")) throw e;
  } finally {
    closeSync(d);
  }
}

const DIR_SYNC_UNSUPPORTED = new Set(["EISDIR", "EPERM", "EACCES", "EINVAL", "EBADF"]);
