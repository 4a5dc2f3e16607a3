/**
 * AvalancheGo's genesis configs that avaext ships (config/genesis/, origins in its README.md), and genesis files an
 * operator names. A name ending in `.gz` is read through gunzip (mainnet's 3.5 MB file ships compressed).
 */
import {closeSync, fstatSync, openSync, readSync} from "node:fs";
import path from "node:path";
import {gunzipSync} from "node:zlib";
import {packageInfo} from "../util/packageInfo.js";

/** The network IDs whose genesis AvalancheGo builds in (utils/constants/network_ids.go), and their files here. */
export const BUILT_IN_GENESIS: Readonly<Record<number, string>> = {
  1: "genesis_mainnet.json.gz",
  5: "genesis_fuji.json",
  12345: "genesis_local.json",
};

/**
 * The largest genesis text read, bytes, gunzipped or not: mainnet's, the largest AvalancheGo ships, is 3.5 MB; a
 * file or a gzip member past this is refused before it is held in memory.
 */
export const GENESIS_TEXT_LIMIT = 64 * 2 ** 20;

/** A genesis file's text (gunzipped when its name ends in `.gz`). Throws naming the file. */
export function readGenesisText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readBounded(file, GENESIS_TEXT_LIMIT);
  } catch (e) {
    throw new Error(`unable to load genesis file ${file}: ${(e as Error).message}`);
  }
  if (!file.endsWith(".gz")) return bytes.toString("utf8");
  try {
    // maxOutputLength: a small gzip member that inflates without end is refused at the limit (ERR_BUFFER_TOO_LARGE).
    return gunzipSync(bytes, {maxOutputLength: GENESIS_TEXT_LIMIT}).toString("utf8");
  } catch (e) {
    throw new Error(`unable to load genesis file ${file}: ${(e as Error).message}`);
  }
}

/**
 * The file's bytes, refused past `limit`: a regular file by its size before any is read, anything else (a FIFO,
 * `/dev/zero`, a process substitution) by what it has given once that passes the limit.
 */
function readBounded(file: string, limit: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).isFile() ? fstatSync(fd).size : 0;
    if (size > limit) throw new Error(`${size} bytes, more than the ${limit} a genesis may have`);
    // One scratch buffer, each read's bytes copied out: a pipe gives 64 KiB a read, and a kept view of a fresh 1 MiB
    // buffer per read would hold 16 times what was read.
    const chunks: Buffer[] = [];
    const scratch = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (;;) {
      const n = readSync(fd, scratch, 0, Math.min(scratch.length, limit + 1 - total), null);
      if (n === 0) return Buffer.concat(chunks, total);
      chunks.push(Buffer.from(scratch.subarray(0, n)));
      total += n;
      if (total > limit) throw new Error(`more than the ${limit} bytes a genesis may have`);
    }
  } finally {
    closeSync(fd);
  }
}

/** The shipped genesis config of mainnet, fuji or local, or null for any other network ID. */
export function builtInGenesisText(networkId: number): string | null {
  const name = BUILT_IN_GENESIS[networkId];
  return name ? readGenesisText(path.join(packageInfo().root, "config", "genesis", name)) : null;
}

/** genesis/config.go `localNetworkUpdateStartTimePeriod`: nine 30-day months. */
const LOCAL_START_PERIOD = 9n * 30n * 24n * 3600n;

/**
 * genesis/config.go `getRecentStartTime`: the local config's start time moved forward by whole periods to the
 * latest not after `now` (Unix seconds), as AvalancheGo does for its built-in local network at every start.
 */
export function recentLocalStartTime(defined: bigint, now: bigint): bigint {
  if (now < defined + LOCAL_START_PERIOD) return defined;
  return defined + ((now - defined) / LOCAL_START_PERIOD) * LOCAL_START_PERIOD;
}
