// The dev EVM traffic against a real anvil: every tick mines one block with exactly its transactions, the receipts,
// logs and call traces have the shapes the indexer relies on, and a second anvil reproduces the same block hashes.
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../../src/dev/evm/anvil.js";
import {
  ANVIL_ACCOUNTS,
  contractAddress,
  create2Address,
  DevEvmTraffic,
  runTick,
  type DevEvmAddresses,
  type EthTxRequest,
  type TxKind,
} from "../../../src/dev/evm/traffic.js";
import {decodeAbi, encodeCall, eventTopic} from "../../../src/evm/abi.js";
import {hexToBytes, quantity, toQuantity} from "../../../src/evm/hex.js";
import {quietLogger} from "../../helpers/sql.js";

const CHAIN_ID = 43112;
const GENESIS = 1_700_000_000;
const TICKS = 40;
const timestampOf = (t: number): number => GENESIS + 2 * (t + 1);

interface Tick {
  txs: readonly EthTxRequest[];
  kinds: readonly TxKind[];
  hash: string;
}

interface Receipt {
  from: string;
  transactionHash: string;
  status: string;
  logs: Array<{address: string; topics: string[]}>;
}

interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: Frame[];
}

const startAnvil = (): Promise<Anvil> =>
  Anvil.start({chainId: CHAIN_ID, genesisTimestamp: GENESIS, mining: "manual"}, {logger: quietLogger()});

async function runTicks(anvil: Anvil): Promise<{ticks: Tick[]; addresses: DevEvmAddresses}> {
  const traffic = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
  const ticks: Tick[] = [];
  for (let t = 0; t < TICKS; t++) {
    const hash = await runTick(anvil, traffic, t, timestampOf(t));
    const {txs, kinds} = traffic.lastTick()!;
    ticks.push({txs, kinds, hash});
  }
  return {ticks, addresses: traffic.addresses()!};
}

const key = (from: string, nonce: string): string => `${from.toLowerCase()}:${BigInt(nonce)}`;

describe("dev EVM traffic generator", () => {
  it("computes CREATE and CREATE2 addresses", () => {
    // The well-known first deployments of anvil's/Hardhat's account 0.
    expect(contractAddress(ANVIL_ACCOUNTS[0]!, 0)).toBe("0x5fbdb2315678afecb367f032d93f642f64180aa3");
    expect(contractAddress(ANVIL_ACCOUNTS[0]!, 1)).toBe("0xe7f1725e7734ce288f8367e1bb143e90bb3f0512");
    // EIP-1014's example 0: deployer 0, salt 0, init code 0x00.
    expect(create2Address("0x" + "00".repeat(20), "0x" + "00".repeat(32), "0x00")).toBe(
      "0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38",
    );
  });

  it("is deterministic, uses explicit quantities, and refuses ticks out of order", () => {
    const a = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
    const b = new DevEvmTraffic({accounts: [...ANVIL_ACCOUNTS]});
    expect(a.addresses()).toBeNull();
    for (let t = 0; t < 60; t++) {
      const txs = a.txsForTick(t);
      expect(b.txsForTick(t)).toEqual(txs);
      if (t > 2) expect(txs.length).toBeGreaterThanOrEqual(3);
      expect(txs.length).toBeLessThanOrEqual(8);
      for (const tx of txs) {
        for (const f of [tx.nonce, tx.gas, tx.maxFeePerGas, tx.maxPriorityFeePerGas, ...(tx.value ? [tx.value] : [])])
          expect(f).toMatch(/^0x[0-9a-f]+$/);
        expect(tx.maxFeePerGas).toBe(toQuantity(100n * 10n ** 9n));
      }
      expect(a.lastTick()!.kinds.includes("boom")).toBe(t % 10 === 9);
    }
    expect(a.addresses()).toEqual(b.addresses());
    expect(() => a.txsForTick(70)).toThrow(/expected 60/);
  });
});

describe("dev EVM traffic on anvil", {timeout: 120_000}, () => {
  let anvil: Anvil;
  let ticks: Tick[];
  let addresses: DevEvmAddresses;
  const rpc = <T>(method: string, params: unknown[]): Promise<T> => anvil.rawCall(method, params) as Promise<T>;
  // from:nonce → kind, for matching receipts and traces (anvil may order a block's transactions its own way).
  const kindOf = new Map<string, TxKind>();

  beforeAll(async () => {
    anvil = await startAnvil();
    ({ticks, addresses} = await runTicks(anvil));
    ticks.forEach((tick) => tick.txs.forEach((tx, i) => kindOf.set(key(tx.from, tx.nonce), tick.kinds[i]!)));
  }, 180_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  it("ANVIL_ACCOUNTS are anvil's unlocked accounts", async () => {
    expect((await rpc<string[]>("eth_accounts", [])).slice(0, 10).map((a) => a.toLowerCase())).toEqual(ANVIL_ACCOUNTS);
  });

  it("every tick mines one block with exactly the transactions sent, at the tick's timestamp", async () => {
    expect(quantity(await rpc("eth_blockNumber", []))).toBe(BigInt(TICKS));
    for (let t = 0; t < TICKS; t++) {
      const block = await rpc<{hash: string; timestamp: string; transactions: Array<{from: string; nonce: string}>}>(
        "eth_getBlockByNumber",
        [toQuantity(t + 1), true],
      );
      expect(block.hash).toBe(ticks[t]!.hash);
      expect(Number(block.timestamp)).toBe(timestampOf(t));
      const sent = ticks[t]!.txs.map((tx) => key(tx.from, tx.nonce)).sort();
      expect(block.transactions.map((tx) => key(tx.from, tx.nonce)).sort()).toEqual(sent);
      if (t > 2) expect(sent.length).toBeGreaterThanOrEqual(3);
      expect(sent.length).toBeLessThanOrEqual(8);
    }
  });

  it("the contracts are deployed where the generator computed, children and grandchildren included", async () => {
    const {children, ...main} = addresses;
    expect(children.some((c) => c.create2) && children.some((c) => !c.create2)).toBe(true);
    for (const a of [...Object.values(main), ...children.flatMap((c) => [c.child, c.grandchild])]) {
      expect((await rpc<string>("eth_getCode", [a, "latest"])).length, a).toBeGreaterThan(2);
    }
  });

  it("receipts: boom() reverts (status 0), everything else succeeds; token events have the standard topics", async () => {
    const TRANSFER = eventTopic("Transfer(address,address,uint256)");
    const SINGLE = eventTopic("TransferSingle(address,address,address,uint256,uint256)");
    const BATCH = eventTopic("TransferBatch(address,address,address,uint256[],uint256[])");
    const seen = {erc20: 0, legacy: 0, nft: 0, single: 0, batch: 0, booms: 0};
    for (let t = 0; t < TICKS; t++) {
      const receipts = await rpc<Receipt[]>("eth_getBlockReceipts", [toQuantity(t + 1)]);
      expect(receipts).toHaveLength(ticks[t]!.txs.length);
      for (const r of receipts) {
        const tx = await rpc<{from: string; nonce: string}>("eth_getTransactionByHash", [r.transactionHash]);
        const kind = kindOf.get(key(tx.from, tx.nonce))!;
        expect(r.status, `${kind} in tick ${t}`).toBe(kind === "boom" ? "0x0" : "0x1");
        if (kind === "boom") seen.booms++;
        for (const log of r.logs) {
          // [contract, event topic, counter, topic count]: ERC-20 indexes from/to (3 topics), ERC-721 also the id (4).
          const shapes: Array<[string, string, keyof typeof seen, number]> = [
            [addresses.devToken, TRANSFER, "erc20", 3],
            [addresses.legacyToken, TRANSFER, "legacy", 3],
            [addresses.devNft, TRANSFER, "nft", 4],
            [addresses.devMulti, SINGLE, "single", 4],
            [addresses.devMulti, BATCH, "batch", 4],
          ];
          for (const [address, topic, counter, topics] of shapes) {
            if (log.address !== address || log.topics[0] !== topic) continue;
            expect(log.topics, counter).toHaveLength(topics);
            seen[counter]++;
          }
        }
      }
    }
    expect(seen.booms).toBe(4); // ticks 9, 19, 29, 39
    for (const [k, n] of Object.entries(seen)) expect(n, k).toBeGreaterThan(0);
  });

  it("call traces: fanout sends value in CALL subcalls, deployments create nested, tryInner has a reverted frame", async () => {
    const found = {fanout: false, create2: false, create: false, tryInner: false};
    for (let t = 3; t < TICKS; t++) {
      const traces = await rpc<Array<{txHash?: string; result?: Frame} | Frame>>("debug_traceBlockByNumber", [
        toQuantity(t + 1),
        {tracer: "callTracer"},
      ]);
      const block = await rpc<{transactions: Array<{from: string; nonce: string; hash: string}>}>(
        "eth_getBlockByNumber",
        [toQuantity(t + 1), true],
      );
      expect(traces).toHaveLength(block.transactions.length);
      traces.forEach((tr, i) => {
        const frame = ("result" in tr ? tr.result : tr) as Frame;
        const tx = block.transactions[i]!;
        const kind = kindOf.get(key(tx.from, tx.nonce));
        const calls = frame.calls ?? [];
        if (kind === "fanout") {
          expect(calls.length).toBeGreaterThanOrEqual(2);
          for (const c of calls) expect(c.type === "CALL" && BigInt(c.value!) > 0n).toBe(true);
          found.fanout = true;
        }
        if (kind === "create2" || kind === "create") {
          expect(calls).toHaveLength(1);
          expect(calls[0]!.type).toBe(kind === "create2" ? "CREATE2" : "CREATE");
          // DevChild's constructor deploys a DevGrandchild: a CREATE inside the CREATE/CREATE2 frame.
          expect(calls[0]!.calls?.map((c) => c.type)).toEqual(["CREATE"]);
          found[kind] = true;
        }
        if (kind === "tryInner") {
          expect(frame.error).toBeUndefined();
          expect(calls.some((c) => c.error !== undefined)).toBe(true);
          found.tryInner = true;
        }
      });
    }
    expect(found).toEqual({fanout: true, create2: true, create: true, tryInner: true});
  });

  it("tokenURI is a data: URI of base64 JSON, except token 3's, which is invalid JSON", async () => {
    const tokenUri = async (id: bigint): Promise<string> => {
      const out = await rpc<string>("eth_call", [
        {to: addresses.devNft, data: encodeCall("tokenURI(uint256)", ["uint256"], [id])},
        "latest",
      ]);
      return decodeAbi(["string"], hexToBytes(out))[0] as string;
    };
    const PREFIX = "data:application/json;base64,";
    for (const id of [1n, 2n, 4n]) {
      const uri = await tokenUri(id);
      expect(uri.startsWith(PREFIX)).toBe(true);
      const meta = JSON.parse(Buffer.from(uri.slice(PREFIX.length), "base64").toString("utf8")) as {
        name: string;
        image: string;
      };
      expect(meta.name).toBe(`Dev NFT #${id}`);
      expect(meta.image.startsWith("data:image/svg+xml;base64,")).toBe(true);
      expect(Buffer.from(meta.image.split(",")[1]!, "base64").toString("utf8")).toContain("<svg");
    }
    const broken = await tokenUri(3n);
    expect(broken.startsWith(PREFIX)).toBe(true);
    expect(() => JSON.parse(Buffer.from(broken.slice(PREFIX.length), "base64").toString("utf8"))).toThrow();
  });

  it("LegacyToken's name is bytes32; the NFT and multi-token contracts answer ERC-165", async () => {
    const call = (to: string, data: string): Promise<string> => rpc<string>("eth_call", [{to, data}, "latest"]);
    const name = hexToBytes(await call(addresses.legacyToken, encodeCall("name()", [], [])));
    expect(name).toHaveLength(32);
    expect(Buffer.from(name).toString("utf8").replace(/\0+$/, "")).toBe("Legacy Dev Token");
    const supports = async (to: string, id: string): Promise<boolean> =>
      decodeAbi(
        ["bool"],
        hexToBytes(await call(to, encodeCall("supportsInterface(bytes4)", ["bytes32"], [id.padEnd(66, "0")]))),
      )[0] as boolean;
    for (const id of ["0x80ac58cd", "0x5b5e139f", "0x01ffc9a7"])
      expect(await supports(addresses.devNft, id)).toBe(true);
    for (const id of ["0xd9b67a26", "0x0e89341c", "0x01ffc9a7"])
      expect(await supports(addresses.devMulti, id)).toBe(true);
    expect(await supports(addresses.devNft, "0xd9b67a26")).toBe(false);
    const uri = decodeAbi(
      ["string"],
      hexToBytes(await call(addresses.devMulti, encodeCall("uri(uint256)", ["uint256"], [2n]))),
    )[0] as string;
    expect(JSON.parse(Buffer.from(uri.split(",")[1]!, "base64").toString("utf8"))).toMatchObject({
      name: "Dev Multi #2",
    });
  });

  it("a second fresh anvil given the same ticks and timestamps produces the same block hashes", async () => {
    const twin = await startAnvil();
    try {
      const again = await runTicks(twin);
      expect(again.ticks.map((t) => t.hash)).toEqual(ticks.map((t) => t.hash));
      expect(again.addresses).toEqual(addresses);
    } finally {
      await twin.stop();
    }
  });
});
