/**
 * Stopping the dev EVM when it does not stop: a stand-in for anvil (a real process over real HTTP) that answers
 * eth_chainId and ignores SIGTERM, as anvil did after a week of dev history. Anvil.stop must still end it, and
 * remove the HOME that holds its on-disk states.
 */
import {chmodSync, existsSync, readFileSync, writeFileSync} from "node:fs";
import path from "node:path";
import {expect, it} from "vitest";
import {Anvil} from "../../../src/dev/evm/anvil.js";
import {tempDir} from "../../helpers/node.js";
import {quietLogger} from "../../helpers/sql.js";

const STUBBORN = `#!${process.execPath}
const http = require("node:http");
process.on("SIGTERM", () => {}); // deaf to SIGTERM
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const {id} = JSON.parse(body);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({jsonrpc: "2.0", id, result: "0x2a"}));
  });
});
server.listen(0, "127.0.0.1", () => console.log("Listening on 127.0.0.1:" + server.address().port));
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

it.skipIf(process.platform === "win32")(
  "ends an EVM that ignores SIGTERM, and removes its HOME",
  async () => {
    const dir = tempDir();
    const binary = path.join(dir, "stubborn-anvil.cjs");
    writeFileSync(binary, STUBBORN);
    chmodSync(binary, 0o755);
    const anvil = await Anvil.start(
      {chainId: 42, genesisTimestamp: 0, mining: "auto", binary},
      {logger: quietLogger()},
    );
    const evm = Number(readFileSync(`/proc/${anvil.pid}/task/${anvil.pid}/children`, "utf8").trim().split(/\s+/)[0]);
    expect(alive(evm)).toBe(true);
    expect(existsSync(anvil.home)).toBe(true);
    const started = Date.now();
    await anvil.stop();
    expect(Date.now() - started).toBeLessThan(8_000);
    await expect.poll(() => alive(evm), {timeout: 20_000}).toBe(false);
    expect(existsSync(anvil.home)).toBe(false);
  },
  120_000,
);
