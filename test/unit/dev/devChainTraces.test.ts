/**
 * The dev EVM's traces and its mining, together (a real anvil over real HTTP). Anvil can deadlock when a block is
 * mined while it traces one (DevEvmChain.guard): without the guard, this load made anvil stop answering in one
 * run of three here (12 s each). Through the guard, every block is mined and every trace answered.
 */
import {expect, it} from "vitest";
import {DevEvmChain} from "../../../src/dev/evm/devChain.js";
import {EvmRpc, defaultEvmRpcOptions} from "../../../src/evm/rpc.js";
import {quietLogger} from "../../helpers/sql.js";

const SECONDS = 15;
const TRACERS = 6;

it(
  "mines and traces at once without the EVM stopping to answer",
  async () => {
    const logger = quietLogger();
    const chain = await DevEvmChain.start({chainId: 43112, genesisTimestamp: 1_700_000_000, accounts: 4}, {logger});
    try {
      const rpc = new EvmRpc(
        {...defaultEvmRpcOptions, url: chain.url, timeoutMs: 10_000, retries: 0, maxConcurrency: TRACERS},
        {logger, guard: chain.guard},
      );
      const accounts = await rpc.call<string[]>("eth_accounts", []);
      const until = Date.now() + SECONDS * 1000;
      let mined = 0;
      let traced = 0;
      const miner = async (): Promise<void> => {
        for (let t = 0; Date.now() < until; t++) {
          const txs = [0, 1, 2].map((i) => ({from: accounts[i], to: accounts[i + 1], value: "0x1"}));
          const block = await chain.mine(t, 1_700_000_010 + t, txs);
          expect(block.txs).toHaveLength(3);
          mined++;
        }
      };
      const tracer = async (): Promise<void> => {
        while (Date.now() < until) {
          if (mined === 0) {
            await new Promise((r) => setTimeout(r, 20));
            continue;
          }
          const n = 1 + Math.floor(Math.random() * mined);
          const traces = await rpc.call<unknown[]>("debug_traceBlockByNumber", [
            "0x" + n.toString(16),
            {tracer: "callTracer"},
          ]);
          expect(traces).toHaveLength(3);
          traced++;
        }
      };
      await Promise.all([miner(), ...Array.from({length: TRACERS}, tracer)]);
      expect(mined).toBeGreaterThan(0);
      expect(traced).toBeGreaterThan(0);
    } finally {
      await chain.stop();
    }
  },
  (SECONDS + 30) * 1000,
);
