/**
 * Genesis files an operator names (`--genesis-file`): read whole, gunzipped when named `.gz`, and refused past the
 * genesis text limit before they are held in memory, compressed or not.
 */
import {mkdtempSync, rmSync, truncateSync, writeFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {gzipSync} from "node:zlib";
import {afterAll, describe, expect, it} from "vitest";
import {GENESIS_TEXT_LIMIT, readGenesisText} from "../../../src/genesis/files.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "avaext-genesis-files-"));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

describe("genesis files", () => {
  it("reads a file and a gzipped one", () => {
    writeFileSync(path.join(dir, "g.json"), '{"networkID": 7}');
    writeFileSync(path.join(dir, "g.json.gz"), gzipSync('{"networkID": 8}'));
    expect(readGenesisText(path.join(dir, "g.json"))).toBe('{"networkID": 7}');
    expect(readGenesisText(path.join(dir, "g.json.gz"))).toBe('{"networkID": 8}');
  });

  it("refuses a file past the limit without reading it", () => {
    const big = path.join(dir, "big.json");
    writeFileSync(big, "");
    // Sparse: the size is what is checked, and no page of it is ever read.
    truncateSync(big, GENESIS_TEXT_LIMIT + 1);
    expect(() => readGenesisText(big)).toThrow(
      new RegExp(`unable to load genesis file .*big\\.json: ${GENESIS_TEXT_LIMIT + 1} bytes, more than`),
    );
  });

  it("refuses a small gzip member that inflates past the limit", () => {
    const bomb = gzipSync(Buffer.alloc(GENESIS_TEXT_LIMIT + 1024, 0x20), {level: 9});
    expect(bomb.length).toBeLessThan(GENESIS_TEXT_LIMIT / 100);
    writeFileSync(path.join(dir, "bomb.json.gz"), bomb);
    expect(() => readGenesisText(path.join(dir, "bomb.json.gz"))).toThrow(
      /unable to load genesis file .*bomb\.json\.gz: .*(larger|buffer)/i,
    );
  });

  it("refuses what is not a file once it has given more than the limit", () => {
    // A character device that never ends: its size is 0, so only the bytes read can stop it.
    expect(() => readGenesisText("/dev/zero")).toThrow(
      new RegExp(`unable to load genesis file /dev/zero: more than the ${GENESIS_TEXT_LIMIT} bytes`),
    );
  });

  it("names a missing file", () => {
    expect(() => readGenesisText(path.join(dir, "none.json"))).toThrow(
      /unable to load genesis file .*none\.json: ENOENT/,
    );
  });
});
