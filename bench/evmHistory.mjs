// A realistic EVM history in a fresh anvil for bench/evm.mjs: `blocks` blocks of `txsPerBlock` transactions each,
// mined one by one (`--no-mining`, then `evm_mine`), a block's sends as one JSON-RPC batch. A pool of addresses (funded with anvil_setBalance, sending through
// anvil_autoImpersonateAccount) trades the dev contracts: ERC-20 transfers, ERC-721 mints and transfers, ERC-1155
// mints, single and batch transfers, DevFactory.fanout with value to 3-5 recipients (internal calls), occasional
// CREATE2 deployments, native transfers. Nonces, gas and fees are explicit; token state is tracked here, so every
// transaction succeeds (the caller checks the receipts).
// With `icmShare` (default 0.1), that share of the transactions are interchain messages through the messenger and
// the warp stand-in installed on the chain (src/dev/evm/icm.js): half are sends to another chain (half of them with
// a fee in the bench token), half are deliveries of messages from that chain (the stand-in's deliver, then
// receiveCrossChainMessage, which executes the message on a receiver contract), so the follower folds every ICM
// event kind but fees added and receipts.
import {randomBytes} from "node:crypto";
import {encodeAbi, encodeAbiSpec, encodeCall, encodeCallSpec} from "../dist/src/evm/abi.js";
import {
  DEFAULT_ICM_MESSENGER,
  TELEPORTER_MESSAGE_INPUT_SPEC,
  TELEPORTER_MESSAGE_SPEC,
} from "../dist/src/dataApi/evm/icm.js";
import {WARP_PRECOMPILE, installIcm} from "../dist/src/dev/evm/icm.js";
import {encodeAddressedCall, serializeUnsignedMessage} from "../dist/src/warp/message.js";
import {bytesToHex, toQuantity} from "../dist/src/evm/hex.js";
import {contractAddress} from "../dist/src/dev/evm/traffic.js";
import {DevFactory, DevIcmReceiver, DevMulti, DevNFT, DevToken} from "../dist/src/dev/evm/artifacts.js";
import {mulberry32 as prng} from "../dist/src/util/prng.js";

const GWEI = 10n ** 9n;
const MAX_FEE = toQuantity(100n * GWEI);
const TIP = toQuantity(GWEI);
const GAS = {
  deploy: 5_000_000,
  native: 21_000,
  erc20: 80_000,
  nftMint: 150_000,
  nftTransfer: 150_000,
  multiMint: 150_000,
  multiSingle: 150_000,
  multiBatch: 250_000,
  fanout: 300_000,
  create2: 1_000_000,
  approve: 80_000,
  icmSend: 400_000,
  icmDeliver: 1_500_000,
  icmReceive: 1_000_000,
};
const MESSENGER = DEFAULT_ICM_MESSENGER.toLowerCase();
const NETWORK_ID = 12345;
/** This chain's blockchain ID and the other chain's (the messages' other end), for the messenger. */
const HERE = new Uint8Array(32).fill(0xa1);
const THERE = new Uint8Array(32).fill(0xb2);
const TOKENS_EACH = 10n ** 24n;
// Kinds after the set-up blocks, by weight.
// anvil keeps every block's state in memory (so old blocks can be traced), a full copy a block: what grows the
// state is bounded (at most NFT_IDS NFTs, then transfers only; 4 ERC-1155 ids) or rare (CREATE2 children).
const MIX = [
  ["native", 20],
  ["erc20", 32],
  ["nftMint", 4],
  ["nftTransfer", 12],
  ["multiMint", 5],
  ["multiSingle", 6],
  ["multiBatch", 4],
  ["fanout", 17],
  ["create2", 0.25],
];
const NFT_IDS = 300;
const MIX_TOTAL = MIX.reduce((a, [, w]) => a + w, 0);

async function rpcBatch(url, calls) {
  const body = JSON.stringify(calls.map((c, i) => ({jsonrpc: "2.0", id: i, method: c[0], params: c[1]})));
  const res = await fetch(url, {method: "POST", headers: {"content-type": "application/json"}, body});
  const out = await res.json();
  if (!Array.isArray(out)) throw new Error(`anvil refused a batch: ${JSON.stringify(out).slice(0, 300)}`);
  for (const r of out) if (r.error) throw new Error(`anvil ${calls[r.id][0]}: ${r.error.message}`);
  return out.sort((a, b) => a.id - b.id).map((r) => r.result);
}

/** Builds the history; returns {seconds, txs, addresses: {token, nft, multi, factory}}. */
export async function buildHistory({
  url,
  blocks,
  txsPerBlock = 20,
  addresses = 200,
  genesisTimestamp,
  seed = 1,
  icmShare = 0.1,
}) {
  const rand = prng(seed);
  const started = performance.now();
  const pool = Array.from({length: addresses}, () => "0x" + randomBytes(20).toString("hex"));
  const pick = (not) => {
    for (;;) {
      const a = pool[Math.floor(rand() * pool.length)];
      if (a !== not) return a;
    }
  };
  await rpcBatch(url, [
    ["anvil_autoImpersonateAccount", [true]],
    ...pool.map((a) => ["anvil_setBalance", [a, toQuantity(10n ** 24n)]]),
  ]);
  if (icmShare > 0)
    await installIcm(
      {rawCall: async (method, params) => (await rpcBatch(url, [[method, params]]))[0]},
      {networkId: NETWORK_ID, blockchainId: bytesToHex(HERE)},
    );
  const nonces = new Map();
  const nonce = (a) => {
    const n = nonces.get(a) ?? 0;
    nonces.set(a, n + 1);
    return toQuantity(n);
  };
  const tx = (kind, from, to, data, value) => ({
    from,
    ...(to ? {to} : {}),
    ...(data ? {data} : {}),
    ...(value ? {value: toQuantity(value)} : {}),
    nonce: nonce(from),
    gas: toQuantity(GAS[kind]),
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  });

  const deployer = pool[0];
  const token = contractAddress(deployer, 0);
  const nft = contractAddress(deployer, 1);
  const multi = contractAddress(deployer, 2);
  const factory = contractAddress(deployer, 3);
  const receiver = contractAddress(deployer, 4);
  // Set-up: the contracts, then DevToken spread over the pool (each address then sends small amounts only), and
  // with ICM every address's allowance for the messenger to take fees in it.
  const setup = [
    tx(
      "deploy",
      deployer,
      null,
      DevToken.bytecode +
        bytesToHex(
          encodeAbi(["string", "string", "uint256"], ["Bench Token", "BENCH", TOKENS_EACH * BigInt(addresses + 1)]),
        ),
    ),
    tx("deploy", deployer, null, DevNFT.bytecode),
    tx("deploy", deployer, null, DevMulti.bytecode),
    tx("deploy", deployer, null, DevFactory.bytecode),
    tx("deploy", deployer, null, DevIcmReceiver.bytecode),
    ...pool
      .slice(1)
      .map((a) =>
        tx("erc20", deployer, token, encodeCall("transfer(address,uint256)", ["address", "uint256"], [a, TOKENS_EACH])),
      ),
    ...(icmShare > 0
      ? pool.map((a) =>
          tx(
            "approve",
            a,
            token,
            encodeCall("approve(address,uint256)", ["address", "uint256"], [MESSENGER, TOKENS_EACH]),
          ),
        )
      : []),
  ];
  let inboundNonce = 0n;
  let deliverIndex = 0n;
  /** A message from the other chain, as its messenger would have sent it, delivered by `relayer`: two transactions. */
  const delivery = (relayer) => {
    const message = encodeAbiSpec(
      [TELEPORTER_MESSAGE_SPEC],
      [[++inboundNonce, pick(), HERE, receiver, 150_000n, [], [], randomBytes(32 + Math.floor(rand() * 96))]],
    );
    const unsigned = serializeUnsignedMessage({
      networkId: NETWORK_ID,
      sourceChainId: THERE,
      payload: encodeAddressedCall({sourceAddress: Buffer.from(MESSENGER.slice(2), "hex"), payload: message}),
    });
    // A slot of the stand-in per delivery, reused every 32 (a block holds at most 10 deliveries): anvil keeps a full
    // copy of the state per block, so state that only grows makes long histories run it out of memory.
    const index = ++deliverIndex % 32n;
    return [
      tx(
        "icmDeliver",
        relayer,
        WARP_PRECOMPILE,
        encodeCall("deliver(uint32,bytes)", ["uint256", "bytes"], [index, "0x" + bytesToHex(unsigned)]),
      ),
      tx(
        "icmReceive",
        relayer,
        MESSENGER,
        encodeCall("receiveCrossChainMessage(uint32,address)", ["uint256", "address"], [index, relayer]),
      ),
    ];
  };

  // Token state; what a block sends is taken from the state before the block (a holder spends what it held).
  const nftOwner = new Map(); // id → owner
  const nftIds = [];
  let nextNftId = 1n;
  const multiBal = new Map(); // `${id}:${holder}` → balance
  const multiHolders = new Map(); // holder → Set(id)
  const addMulti = (id, holder, v) => {
    const k = `${id}:${holder}`;
    const b = (multiBal.get(k) ?? 0n) + v;
    multiBal.set(k, b);
    if (!multiHolders.has(holder)) multiHolders.set(holder, new Set());
    if (b > 0n) multiHolders.get(holder).add(id);
    else multiHolders.get(holder).delete(id);
  };
  let salt = 0n;
  let txs = 0;

  const randomTx = (busy, after, forced) => {
    if (!forced && rand() < icmShare / 2) {
      const from = pick();
      const fee = rand() < 0.5 ? [token, 10n ** 15n] : ["0x" + "0".repeat(40), 0n];
      return tx(
        "icmSend",
        from,
        MESSENGER,
        encodeCallSpec(
          "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
          [TELEPORTER_MESSAGE_INPUT_SPEC],
          [[THERE, pick(from), fee, 150_000n, [], randomBytes(32 + Math.floor(rand() * 96))]],
        ),
      );
    }
    let r = rand() * MIX_TOTAL;
    let kind = forced ?? MIX[0][0];
    for (const [k, w] of forced ? [] : MIX) {
      if ((r -= w) < 0) {
        kind = k;
        break;
      }
    }
    switch (kind) {
      case "native": {
        const from = pick();
        return tx(kind, from, pick(from), null, BigInt(1 + Math.floor(rand() * 1000)) * 10n ** 14n);
      }
      case "erc20": {
        const from = pick(deployer);
        return tx(
          kind,
          from,
          token,
          encodeCall(
            "transfer(address,uint256)",
            ["address", "uint256"],
            [pick(from), BigInt(1 + Math.floor(rand() * 1e9)) * 10n ** 6n],
          ),
        );
      }
      case "nftMint": {
        if (nextNftId > NFT_IDS && nftIds.length > 0) return randomTx(busy, after, "nftTransfer");
        const to = pick();
        const id = nextNftId++;
        after.push(() => {
          nftOwner.set(id, to);
          nftIds.push(id);
        });
        return tx(kind, pick(), nft, encodeCall("mint(address)", ["address"], [to]));
      }
      case "nftTransfer": {
        if (nftIds.length === 0) return randomTx(busy, after);
        const id = nftIds[Math.floor(rand() * nftIds.length)];
        if (busy.has(`nft:${id}`)) return randomTx(busy, after);
        busy.add(`nft:${id}`);
        const from = nftOwner.get(id);
        const to = pick(from);
        after.push(() => nftOwner.set(id, to));
        return tx(
          kind,
          from,
          nft,
          encodeCall(
            rand() < 0.5 ? "transferFrom(address,address,uint256)" : "safeTransferFrom(address,address,uint256)",
            ["address", "address", "uint256"],
            [from, to, id],
          ),
        );
      }
      case "multiMint": {
        const to = pick();
        const id = BigInt(1 + Math.floor(rand() * 4));
        const v = BigInt(10 + Math.floor(rand() * 90));
        after.push(() => addMulti(id, to, v));
        return tx(
          kind,
          pick(),
          multi,
          encodeCall("mint(address,uint256,uint256)", ["address", "uint256", "uint256"], [to, id, v]),
        );
      }
      case "multiSingle":
      case "multiBatch": {
        const holders = [...multiHolders].filter(
          ([h, ids]) => ids.size >= (kind === "multiBatch" ? 2 : 1) && !busy.has(`multi:${h}`),
        );
        if (holders.length === 0) return randomTx(busy, after);
        const [from, idSet] = holders[Math.floor(rand() * holders.length)];
        busy.add(`multi:${from}`);
        const to = pick(from);
        const ids = [...idSet].slice(0, kind === "multiBatch" ? 2 + Math.floor(rand() * 3) : 1);
        const values = ids.map((id) => (multiBal.get(`${id}:${from}`) + 1n) / 2n);
        ids.forEach((id, i) => addMulti(id, from, -values[i]));
        after.push(() => ids.forEach((id, i) => addMulti(id, to, values[i])));
        const data =
          kind === "multiSingle"
            ? encodeCall(
                "safeTransferFrom(address,address,uint256,uint256,bytes)",
                ["address", "address", "uint256", "uint256", "bytes"],
                [from, to, ids[0], values[0], new Uint8Array()],
              )
            : encodeCall(
                "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
                ["address", "address", "uint256[]", "uint256[]", "bytes"],
                [from, to, ids, values, new Uint8Array()],
              );
        return tx(kind, from, multi, data);
      }
      case "fanout": {
        const from = pick();
        const count = 3 + Math.floor(rand() * 3);
        return tx(
          kind,
          from,
          factory,
          encodeCall("fanout(address[])", ["address[]"], [Array.from({length: count}, () => pick(from))]),
          BigInt(count) * 10n ** 15n,
        );
      }
      case "create2":
        return tx(
          kind,
          pick(),
          factory,
          encodeCall("deploy(bytes32)", ["bytes32"], ["0x" + (++salt).toString(16).padStart(64, "0")]),
        );
    }
    throw new Error(kind);
  };

  for (let b = 1; b <= blocks; b++) {
    const busy = new Set();
    const after = [];
    const list = [];
    while (list.length < txsPerBlock && setup.length > 0) list.push(setup.shift());
    while (list.length < txsPerBlock) {
      // Deliveries (two transactions each) take the other half of the ICM share.
      if (setup.length === 0 && list.length + 2 <= txsPerBlock && rand() < icmShare / 4) list.push(...delivery(pick()));
      else list.push(randomTx(busy, after));
    }
    for (const f of after) f();
    txs += list.length;
    // anvil answers a batch's calls concurrently: a block's sends are one batch, its evm_mine the next request.
    await rpcBatch(
      url,
      list.map((t) => ["eth_sendTransaction", [t]]),
    );
    await rpcBatch(url, [["evm_mine", [{timestamp: genesisTimestamp + b * 2}]]]);
  }
  return {seconds: (performance.now() - started) / 1000, txs, addresses: {token, nft, multi, factory, receiver}};
}
