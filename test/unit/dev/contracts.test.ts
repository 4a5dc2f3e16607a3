// The committed artifacts are exactly what the committed sources compile to, with the pinned solc.
import {readFileSync} from "node:fs";
import {createRequire} from "node:module";
import {describe, expect, it} from "vitest";
import {ARTIFACTS, SOLC_VERSION, SOURCES_SHA256} from "../../../src/dev/evm/artifacts.js";
import {
  ARTIFACTS_PATH,
  compileContracts,
  readSources,
  renderArtifacts,
  sourcesSha256,
} from "../../../scripts/compile-contracts.mjs";

describe("dev contracts", () => {
  const sources = readSources();

  it("the sources hash matches the sources", () => {
    expect(Object.keys(sources)).toEqual(
      expect.arrayContaining([
        "contracts/DevToken.sol",
        "contracts/LegacyToken.sol",
        "contracts/DevNFT.sol",
        "contracts/DevMulti.sol",
        "contracts/DevFactory.sol",
        "contracts/IcmMessenger.sol",
        "contracts/WarpStandIn.sol",
        "contracts/DevIcmReceiver.sol",
        "contracts/IWarp.sol",
      ]),
    );
    expect(SOURCES_SHA256).toBe(sourcesSha256(sources));
  });

  it("were compiled by the installed solc", () => {
    const {version} = createRequire(import.meta.url)("solc/package.json") as {version: string};
    expect(SOLC_VERSION.startsWith(`${version}+`)).toBe(true);
  });

  it("the committed bytecode and ABIs equal a fresh compile", {timeout: 120_000}, () => {
    const fresh = compileContracts(sources);
    expect(Object.keys(fresh).sort()).toEqual(Object.keys(ARTIFACTS).sort());
    for (const [name, c] of Object.entries(fresh)) {
      expect(ARTIFACTS[name as keyof typeof ARTIFACTS].bytecode, name).toBe(c.bytecode);
      expect(ARTIFACTS[name as keyof typeof ARTIFACTS].abi, name).toEqual(c.abi);
    }
    // And the whole generated file, so a hand edit anywhere in it fails too.
    expect(readFileSync(ARTIFACTS_PATH, "utf8")).toBe(renderArtifacts(fresh, sourcesSha256(sources)));
  });
});
