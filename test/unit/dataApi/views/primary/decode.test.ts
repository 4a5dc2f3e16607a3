import {readFileSync} from "node:fs";
import {
  Address,
  avaxSerial,
  avmSerial,
  BigIntPr,
  Byte,
  Bytes,
  BlsPublicKey,
  BlsSignature,
  evmSerial,
  Id,
  Int,
  L1Validator,
  MintOutput,
  NodeId,
  PChainOwner,
  pvmSerial,
  Stringpr,
  TransferableOutput,
  TransferInput,
  TransferOutput,
  Input,
  Utxo,
  utils,
} from "@avalabs/avalanchejs";
import {ripemd160} from "@noble/hashes/legacy.js";
import {sha256} from "@noble/hashes/sha2.js";
import {describe, expect, it} from "vitest";
import {decodePrimaryContainer, PrimaryDecodeError} from "../../../../../src/dataApi/views/primary/decode.js";
import type {PrimaryContainer, PrimaryTx} from "../../../../../src/dataApi/views/primary/model.js";
import {repeatedId, subnetToL1ConversionId} from "../../../../../src/dataApi/views/primary/txCodec.js";
import {buildEvmBlock} from "../../../../../src/decode/coreth.js";
import {RLP} from "@ethereumjs/rlp";
import {keccak_256} from "@noble/hashes/sha3.js";
import {Writer} from "../../../../../src/decode/reader.js";
import {cb58Encode, EMPTY_ID} from "../../../../../src/util/cb58.js";
import {
  ADDRESS,
  apricotOneTx,
  apricotStandard,
  AVAX,
  avaxBase,
  avmBlock,
  banffProposal,
  banffStandard,
  BLOCK_TIME,
  blsKey,
  C_CHAIN,
  decisionBlock,
  expectedUtxoId,
  NETWORK_ID,
  OTHER_ADDRESS,
  owners,
  P_CHAIN,
  PARENT,
  PUBLIC_KEY,
  seeded,
  sign,
  signBytes,
  type SignedFixture,
  subnetAuth,
  transferIn,
  transferOut,
  vertex,
  wrap,
  wrapOption,
  wrapGranite,
  wrapSigned,
  WRAPPER_PARENT,
  WRAPPER_TIME,
  X_CHAIN,
} from "./helpers.js";

const CTX = {containerId: "container-id"};
const IN_TX = seeded("in-tx");
const IN_TX2 = seeded("in-tx-2");
const SUBNET = seeded("subnet");
const NODE = seeded("node").subarray(0, 20);
const NODE_ID = `NodeID-${cb58Encode(NODE)}`;
type Vm = "PVM" | "AVM" | "EVM";

/** The one tx of a P block (Banff standard, proposervm-wrapped), checked for the framing facts. */
function decodeInPBlock(f: SignedFixture): PrimaryTx {
  const inner = banffStandard([f.signed]);
  const c = decodePrimaryContainer("P", "block", wrap(inner), CTX);
  expect(c.blockType).toBe("Standard");
  expect(c.blockId).toBe(cb58Encode(sha256(inner)));
  expect(c.txs).toHaveLength(1);
  return checkTx(c.txs[0]!, f, "P");
}

function decodeInXBlock(f: SignedFixture): PrimaryTx {
  const c = decodePrimaryContainer("X", "block", wrap(avmBlock([f.signed])), CTX);
  expect(c.txs).toHaveLength(1);
  const tx = checkTx(c.txs[0]!, f, "X");
  // The same tx standalone decodes the same.
  const alone = decodePrimaryContainer("X", "tx", f.signed, CTX);
  expect(alone.txs[0]).toEqual(tx);
  expect(alone.blockId).toBe(f.txIdString);
  return tx;
}

function checkTx(tx: PrimaryTx, f: SignedFixture, chain: "P" | "X" | "C"): PrimaryTx {
  expect(tx.id).toBe(f.txIdString);
  expect(tx.chain).toBe(chain);
  expect(Buffer.from(tx.bytes).equals(Buffer.from(f.signed))).toBe(true);
  return tx;
}

interface OutSpec {
  asset: Uint8Array;
  amount: bigint;
  addresses?: Uint8Array[];
  locktime?: bigint;
  stakeableLocktime?: bigint;
  staked?: boolean;
  utxoType?: string;
  exportedTo?: Uint8Array | null;
  /** The avalanchejs output, to compare utxoBytes with avalanchejs's Utxo serialisation. */
  out: TransferOutput | MintOutput | pvmSerial.StakeableLockOut;
}

function checkOutputs(tx: PrimaryTx, f: SignedFixture, vm: Vm, specs: OutSpec[]): void {
  const codec = utils.getManagerForVM(vm).getDefaultCodec();
  expect(tx.outputs).toHaveLength(specs.length);
  specs.forEach((s, i) => {
    const o = tx.outputs[i]!;
    expect(o.outputIndex).toBe(i);
    expect(o.utxoId).toBe(expectedUtxoId(f.txId, i));
    expect(o.assetId).toBe(cb58Encode(s.asset));
    expect(o.amount).toBe(s.amount);
    expect(o.owner.locktime).toBe(s.locktime ?? 0n);
    expect(o.owner.threshold).toBe(1);
    expect(o.owner.addresses.map((a) => Buffer.from(a).toString("hex"))).toEqual(
      (s.addresses ?? [ADDRESS]).map((a) => Buffer.from(a).toString("hex")),
    );
    expect(o.stakeableLocktime).toBe(s.stakeableLocktime ?? 0n);
    expect(o.staked).toBe(s.staked ?? false);
    expect(o.utxoType).toBe(s.utxoType ?? "TRANSFER");
    expect(o.exportedTo).toBe(s.exportedTo ? cb58Encode(s.exportedTo) : null);
    expect(o.groupId).toBe(0);
    expect(o.payload).toHaveLength(0);
    const utxo = new Utxo(new avaxSerial.UTXOID(new Id(f.txId), new Int(i)), new Id(s.asset), s.out);
    const expected = new Uint8Array([0, 0, ...utxo.toBytes(codec)]);
    expect(Buffer.from(o.utxoBytes).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
  });
}

interface InSpec {
  txId: Uint8Array;
  index: number;
  asset: Uint8Array;
  amount: bigint;
  sigIndices?: number[];
  importedFrom?: Uint8Array | null;
}

function checkInputs(tx: PrimaryTx, f: SignedFixture, specs: InSpec[]): void {
  expect(tx.inputs).toHaveLength(specs.length);
  specs.forEach((s, i) => {
    const input = tx.inputs[i]!;
    expect(input.txId).toBe(cb58Encode(s.txId));
    expect(input.outputIndex).toBe(s.index);
    expect(input.utxoId).toBe(expectedUtxoId(s.txId, s.index));
    expect(input.assetId).toBe(cb58Encode(s.asset));
    expect(input.amount).toBe(s.amount);
    expect(input.sigIndices).toEqual(s.sigIndices ?? [0]);
    expect(input.importedFrom).toBe(s.importedFrom ? cb58Encode(s.importedFrom) : null);
    expect(input.credentials).toHaveLength(1);
    expect(Buffer.from(input.credentials[0]!.signature).equals(Buffer.from(f.signature))).toBe(true);
    expect(Buffer.from(input.credentials[0]!.publicKey!).equals(Buffer.from(PUBLIC_KEY))).toBe(true);
  });
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** The standard base of P txs: one input of 10 AVAX, one change output of 3 AVAX. */
function pBase(memo = "memo"): avaxSerial.BaseTx {
  return avaxBase(P_CHAIN, [transferOut(AVAX, 3_000_000_000n)], [transferIn(IN_TX, 2, AVAX, 10_000_000_000n)], memo);
}
const P_BASE_IN: InSpec = {txId: IN_TX, index: 2, asset: AVAX, amount: 10_000_000_000n};
const P_BASE_OUT = (): OutSpec => ({
  asset: AVAX,
  amount: 3_000_000_000n,
  out: new TransferOutput(new BigIntPr(3_000_000_000n), owners([ADDRESS])),
});

function validator(start = 1_000n, end = 2_000n, weight = 5_000_000_000n): pvmSerial.Validator {
  return new pvmSerial.Validator(new NodeId(NODE), new BigIntPr(start), new BigIntPr(end), new BigIntPr(weight));
}

function checkAuthCredential(tx: PrimaryTx, f: SignedFixture): void {
  const auth = tx.details.extra?.authCredentials as Array<Array<{signature: string; publicKey: string}>>;
  expect(auth).toHaveLength(1);
  expect(auth[0]![0]!.publicKey).toBe(hex(PUBLIC_KEY));
  expect(auth[0]![0]!.signature).toBe(hex(f.signature));
}

describe("fixtures (test/fixtures/containers.json)", () => {
  const fixtures = JSON.parse(readFileSync("test/fixtures/containers.json", "utf8")) as Array<{
    name: string;
    chain: "P" | "X" | "C";
    kind: "block" | "vtx" | "tx";
    hex: string;
    id: string;
    facts: Record<string, any>;
  }>;
  const decode = (name: string): [PrimaryContainer, Record<string, any>, string] => {
    const f = fixtures.find((x) => x.name === name)!;
    const bytes = Buffer.from(f.hex.slice(2), "hex");
    const c = decodePrimaryContainer(f.chain, f.kind, bytes, {containerId: f.id});
    expect(c.sizeBytes).toBe(bytes.length);
    expect(c.containerId).toBe(f.id);
    expect(c.chain).toBe(f.chain);
    expect(c.kind).toBe(f.kind);
    return [c, f.facts, f.id];
  };

  it("covers every fixture", () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual([
      "c-local-proposervm-signed-h12",
      "c-testvector-coreth-block-2-atomic",
      "c-testvector-coreth-block-3",
      "p-mainnet-apricot-standard-1000001",
      "p-mainnet-banff-standard-4827146",
      "p-mainnet-banff-standard-5093857",
      "x-local-tx-index0",
      "x-mainnet-tx-index1",
      "x-mainnet-vertex-h2121958",
    ]);
  });

  it("c-local-proposervm-signed-h12: a signed proposervm block around a coreth block", () => {
    const [c, facts, id] = decode("c-local-proposervm-signed-h12");
    const inner = facts.innerBlock;
    expect(c.blockId).toBe(inner.ethHash);
    expect(c.parentId).toBe(inner.parentHash);
    expect(c.height).toBe(BigInt(inner.height));
    expect(c.timestamp).toBe(BigInt(inner.timestamp));
    expect(c.txs).toHaveLength(inner.extDataLength); // no atomic txs: the 2 EVM txs are §6's
    expect(c.proposer!.proposerId).toBe(id);
    expect(c.proposer!.proposerParentId).toBe(facts.parentID);
    expect(c.proposer!.proposerTimestamp).toBe(BigInt(facts.timestamp));
    expect(c.proposer!.proposerPChainHeight).toBe(BigInt(facts.pChainHeight));
    // NodeID of the certificate: computed here from the certificate's bytes (after the 4-byte length).
    const bytes = Buffer.from(fixtures.find((f) => f.name === "c-local-proposervm-signed-h12")!.hex.slice(2), "hex");
    const certLen = bytes.readUInt32BE(2 + 4 + 32 + 8 + 8);
    expect(certLen).toBe(facts.certificateLength);
    const cert = bytes.subarray(2 + 4 + 32 + 8 + 8 + 4, 2 + 4 + 32 + 8 + 8 + 4 + certLen);
    expect(c.proposer!.proposerNodeId).toBe(`NodeID-${cb58Encode(ripemd160(sha256(cert)))}`);
    expect(c.proposer!.proposerNodeId.startsWith("NodeID-")).toBe(true);
  });

  it("c-testvector-coreth-block-2-atomic: one atomic ImportTx in extData", () => {
    const [c, facts] = decode("c-testvector-coreth-block-2-atomic");
    expect(c.blockId).toBe(facts.ethHash);
    expect(c.parentId).toBe(facts.parentHash);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.timestamp).toBe(BigInt(facts.timestamp));
    expect(c.proposer).toBeNull();
    expect(c.txs).toHaveLength(1);
    const tx = c.txs[0]!;
    expect(tx.id).toBe(facts.atomicTx.txID);
    expect(tx.txType).toBe("ImportTx");
    expect(tx.bytes).toHaveLength(facts.extDataLength);
    expect(tx.inputs.length).toBeGreaterThan(0);
    for (const i of tx.inputs) expect(i.credentials[0]!.publicKey).not.toBeNull();
    expect(tx.evmOutputs.length).toBeGreaterThan(0);
    expect(tx.sourceChain).not.toBeNull();
  });

  it("c-testvector-coreth-block-3: no atomic txs", () => {
    const [c, facts] = decode("c-testvector-coreth-block-3");
    expect(c.blockId).toBe(facts.ethHash);
    expect(c.parentId).toBe(facts.parentHash);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.timestamp).toBe(BigInt(facts.timestamp));
    expect(c.txs).toEqual([]);
  });

  it("p-mainnet-apricot-standard-1000001: an ExportTx", () => {
    const [c, facts, id] = decode("p-mainnet-apricot-standard-1000001");
    expect(c.blockId).toBe(id);
    expect(c.blockType).toBe("Standard");
    expect(c.parentId).toBe(facts.parentID);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.timestamp).toBeNull();
    expect(c.txs.map((t) => t.id)).toEqual(facts.txIDs);
    expect(c.txs.map((t) => `pvm.${t.txType}`)).toEqual(facts.txTypes);
    const tx = c.txs[0]!;
    expect(tx.destinationChain).toBe(facts.tx0.destinationChain);
    expect(tx.inputs[0]!.txId).toBe(facts.tx0.inputTxID);
    expect(tx.inputs[0]!.amount).toBe(BigInt(facts.tx0.inputAmount));
    const exported = tx.outputs.filter((o) => o.exportedTo !== null);
    expect(exported.reduce((a, o) => a + o.amount, 0n)).toBe(BigInt(facts.tx0.exportedAmount));
    expect(exported.every((o) => o.exportedTo === facts.tx0.destinationChain)).toBe(true);
  });

  it("p-mainnet-banff-standard-4827146: an AddDelegatorTx", () => {
    const [c, facts, id] = decode("p-mainnet-banff-standard-4827146");
    expect(c.blockId).toBe(id);
    expect(c.blockType).toBe("Standard");
    expect(c.parentId).toBe(facts.parentID);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.timestamp).toBe(BigInt(facts.timestamp));
    expect(c.txs.map((t) => t.id)).toEqual(facts.txIDs);
    expect(c.txs.map((t) => `pvm.${t.txType}`)).toEqual(facts.txTypes);
    const tx = c.txs[0]!;
    expect(tx.details.staker!.kind).toBe("delegator");
    const stake = tx.outputs.filter((o) => o.staked);
    expect(stake.reduce((a, o) => a + o.amount, 0n)).toBe(tx.details.staker!.weight);
    expect(stake.every((o) => o.utxoType === "STAKE")).toBe(true);
  });

  it("p-mainnet-banff-standard-5093857: an ImportTx", () => {
    const [c, facts, id] = decode("p-mainnet-banff-standard-5093857");
    expect(c.blockId).toBe(id);
    expect(c.parentId).toBe(facts.parentID);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.timestamp).toBe(BigInt(facts.timestamp));
    expect(c.txs.map((t) => t.id)).toEqual(facts.txIDs);
    expect(c.txs.map((t) => `pvm.${t.txType}`)).toEqual(facts.txTypes);
    expect(c.txs[0]!.inputs.every((i) => i.importedFrom !== null)).toBe(true);
  });

  it("x-mainnet-tx-index1: a BaseTx", () => {
    const [c, facts, id] = decode("x-mainnet-tx-index1");
    const tx = c.txs[0]!;
    expect(c.blockId).toBe(id);
    expect(tx.id).toBe(id);
    expect(`avm.${tx.txType}`).toBe(facts.txType);
    expect(tx.inputs).toHaveLength(facts.inputs);
    expect(tx.outputs).toHaveLength(facts.outputs);
    expect(tx.inputs.flatMap((i) => i.credentials)).toHaveLength(facts.credentials);
  });

  it("x-local-tx-index0: an ExportTx signed by the local network's funded key", () => {
    const [c, facts, id] = decode("x-local-tx-index0");
    const tx = c.txs[0]!;
    expect(tx.id).toBe(id);
    expect(`avm.${tx.txType}`).toBe(facts.txType);
    expect(tx.inputs).toHaveLength(facts.inputs);
    expect(tx.outputs.filter((o) => o.exportedTo === null)).toHaveLength(facts.outputs);
    expect(tx.outputs.filter((o) => o.exportedTo === facts.destinationChain)).toHaveLength(facts.exportedOutputs);
    expect(tx.destinationChain).toBe(facts.destinationChain);
    expect(tx.inputs.flatMap((i) => i.credentials)).toHaveLength(facts.credentials);
    // The recovered key is the local network's funded key: its address owns the change output.
    const key = tx.inputs[0]!.credentials[0]!.publicKey!;
    expect(hex(ripemd160(sha256(key)))).toBe(hex(tx.outputs[0]!.owner.addresses[0]!));
  });

  it("x-mainnet-vertex-h2121958: a vertex with an ImportTx", () => {
    const [c, facts, id] = decode("x-mainnet-vertex-h2121958");
    expect(c.blockId).toBe(id);
    expect(c.height).toBe(BigInt(facts.height));
    expect(c.parentIds).toEqual(facts.parentIDs);
    expect(c.parentId).toBe(facts.parentIDs[0]);
    expect(c.txs.map((t) => t.id)).toEqual(facts.txIDs);
    expect(c.txs[0]!.txType).toBe("ImportTx");
    expect(c.txs[0]!.sourceChain).toBe(facts.txs[0].sourceChain);
    expect(c.txs[0]!.bytes).toHaveLength(facts.txs[0].length);
  });
});

describe("P transactions built with avalanchejs", () => {
  it("BaseTx with stakeable lock in and out", () => {
    const lockOut = new pvmSerial.StakeableLockOut(
      new BigIntPr(9_999n),
      new TransferOutput(new BigIntPr(4n), owners([OTHER_ADDRESS])),
    );
    const tx = new pvmSerial.BaseTx(
      avaxBase(
        P_CHAIN,
        [transferOut(AVAX, 3_000_000_000n), new TransferableOutput(new Id(AVAX), lockOut)],
        [
          transferIn(IN_TX, 2, AVAX, 10_000_000_000n),
          new avaxSerial.TransferableInput(
            new avaxSerial.UTXOID(new Id(IN_TX2), new Int(7)),
            new Id(AVAX),
            new pvmSerial.StakeableLockIn(
              new BigIntPr(5_555n),
              new TransferInput(new BigIntPr(6n), new Input([new Int(0)])),
            ),
          ),
        ],
      ),
    );
    const f = sign(tx, 2);
    const d = decodeInPBlock(f);
    expect(d.txType).toBe("BaseTx");
    expect(new TextDecoder().decode(d.memo)).toBe("memo");
    checkInputs(d, f, [P_BASE_IN, {txId: IN_TX2, index: 7, asset: AVAX, amount: 6n}]);
    checkOutputs(d, f, "PVM", [
      P_BASE_OUT(),
      {
        asset: AVAX,
        amount: 4n,
        addresses: [OTHER_ADDRESS],
        stakeableLocktime: 9_999n,
        utxoType: "STAKEABLE_LOCK",
        out: lockOut,
      },
    ]);
    expect(d.sourceChain).toBeNull();
    expect(d.destinationChain).toBeNull();
    expect(d.evmInputs).toEqual([]);
    expect(d.evmOutputs).toEqual([]);
    expect(d.details).toEqual({});
  });

  it("ImportTx and ExportTx (exported outputs follow the regular ones)", () => {
    const imp = sign(new pvmSerial.ImportTx(pBase(), new Id(X_CHAIN), [transferIn(IN_TX2, 1, AVAX, 8n)]), 2);
    const di = decodeInPBlock(imp);
    expect(di.txType).toBe("ImportTx");
    expect(di.sourceChain).toBe(cb58Encode(X_CHAIN));
    checkInputs(di, imp, [P_BASE_IN, {txId: IN_TX2, index: 1, asset: AVAX, amount: 8n, importedFrom: X_CHAIN}]);
    checkOutputs(di, imp, "PVM", [P_BASE_OUT()]);

    const out = new TransferOutput(new BigIntPr(2_000n), owners([OTHER_ADDRESS]));
    const exp = sign(new pvmSerial.ExportTx(pBase(), new Id(C_CHAIN), [new TransferableOutput(new Id(AVAX), out)]), 1);
    const de = decodeInPBlock(exp);
    expect(de.txType).toBe("ExportTx");
    expect(de.destinationChain).toBe(cb58Encode(C_CHAIN));
    checkInputs(de, exp, [P_BASE_IN]);
    checkOutputs(de, exp, "PVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 2_000n, addresses: [OTHER_ADDRESS], exportedTo: C_CHAIN, out},
    ]);
  });

  it("AddValidatorTx and AddDelegatorTx: stake outputs after the regular ones", () => {
    const stakeOut = new TransferOutput(new BigIntPr(5_000_000_000n), owners([ADDRESS]));
    const reward = owners([OTHER_ADDRESS]);
    const v = sign(
      new pvmSerial.AddValidatorTx(
        pBase(),
        validator(),
        [new TransferableOutput(new Id(AVAX), stakeOut)],
        reward,
        new Int(20_000),
      ),
      1,
    );
    const dv = decodeInPBlock(v);
    expect(dv.txType).toBe("AddValidatorTx");
    checkInputs(dv, v, [P_BASE_IN]);
    checkOutputs(dv, v, "PVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 5_000_000_000n, staked: true, utxoType: "STAKE", out: stakeOut},
    ]);
    const rewardOwner = {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]};
    expect(dv.details.staker).toEqual({
      kind: "validator",
      nodeId: NODE_ID,
      subnetId: EMPTY_ID,
      startTime: 1_000n,
      endTime: 2_000n,
      weight: 5_000_000_000n,
      rewardOwner,
      delegationRewardOwner: rewardOwner,
      delegationShares: 20_000,
      bls: null,
    });

    const d = sign(
      new pvmSerial.AddDelegatorTx(pBase(), validator(), [new TransferableOutput(new Id(AVAX), stakeOut)], reward),
      1,
    );
    const dd = decodeInPBlock(d);
    expect(dd.txType).toBe("AddDelegatorTx");
    checkOutputs(dd, d, "PVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 5_000_000_000n, staked: true, utxoType: "STAKE", out: stakeOut},
    ]);
    expect(dd.details.staker).toEqual({
      ...dv.details.staker,
      kind: "delegator",
      delegationRewardOwner: null,
      delegationShares: 0,
    });
  });

  it("AddPermissionlessValidatorTx and AddPermissionlessDelegatorTx", () => {
    const key = blsKey(3);
    const stakeOut = new TransferOutput(new BigIntPr(5_000_000_000n), owners([ADDRESS]));
    const lockedStake = new pvmSerial.StakeableLockOut(
      new BigIntPr(123n),
      new TransferOutput(new BigIntPr(7n), owners([ADDRESS])),
    );
    const stake = [new TransferableOutput(new Id(AVAX), stakeOut), new TransferableOutput(new Id(AVAX), lockedStake)];
    const signer = new pvmSerial.Signer(new pvmSerial.ProofOfPossession(key.publicKey, key.pop));
    const v = sign(
      new pvmSerial.AddPermissionlessValidatorTx(
        pBase(),
        new pvmSerial.SubnetValidator(validator(), new Id(P_CHAIN)),
        signer,
        stake,
        owners([ADDRESS]),
        owners([OTHER_ADDRESS]),
        new Int(30_000),
      ),
      1,
    );
    const dv = decodeInPBlock(v);
    // No proof-of-possession verification on decode (it costs tens of milliseconds; the chain verified it): a
    // corrupted proof still decodes.
    const at = Buffer.from(v.signed).indexOf(Buffer.from(key.pop));
    const corrupted = new Uint8Array(v.signed);
    corrupted[at + 10] ^= 0xff;
    const dc = decodePrimaryContainer("P", "block", banffStandard([corrupted]), CTX).txs[0]!;
    expect(dc.details.staker!.bls!.proofOfPossession).toBe(hex(corrupted.subarray(at, at + 96)));
    expect(dv.txType).toBe("AddPermissionlessValidatorTx");
    checkOutputs(dv, v, "PVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 5_000_000_000n, staked: true, utxoType: "STAKE", out: stakeOut},
      {asset: AVAX, amount: 7n, staked: true, utxoType: "STAKE", stakeableLocktime: 123n, out: lockedStake},
    ]);
    expect(dv.details.staker).toEqual({
      kind: "validator",
      nodeId: NODE_ID,
      subnetId: EMPTY_ID,
      startTime: null,
      endTime: 2_000n,
      weight: 5_000_000_000n,
      rewardOwner: {locktime: 0n, threshold: 1, addresses: [ADDRESS]},
      delegationRewardOwner: {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]},
      delegationShares: 30_000,
      bls: {publicKey: hex(key.publicKey), proofOfPossession: hex(key.pop)},
    });
    expect(dv.details.extra).toEqual({startTime: "1000"});
    expect(dv.details.subnetId).toBe(EMPTY_ID);

    const d = sign(
      new pvmSerial.AddPermissionlessDelegatorTx(
        pBase(),
        new pvmSerial.SubnetValidator(validator(), new Id(SUBNET)),
        [stake[0]!],
        owners([OTHER_ADDRESS]),
      ),
      1,
    );
    const dd = decodeInPBlock(d);
    expect(dd.txType).toBe("AddPermissionlessDelegatorTx");
    checkInputs(dd, d, [P_BASE_IN]);
    checkOutputs(dd, d, "PVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 5_000_000_000n, staked: true, utxoType: "STAKE", out: stakeOut},
    ]);
    expect(dd.details.staker).toEqual({
      kind: "delegator",
      nodeId: NODE_ID,
      subnetId: cb58Encode(SUBNET),
      startTime: null,
      endTime: 2_000n,
      weight: 5_000_000_000n,
      rewardOwner: {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]},
      delegationRewardOwner: null,
      delegationShares: 0,
      bls: null,
    });
    expect(dd.details.extra).toEqual({startTime: "1000"});
  });

  it("subnet transactions: CreateSubnet, CreateChain, AddSubnetValidator, RemoveSubnetValidator, TransferSubnetOwnership, TransformSubnet", () => {
    const cs = sign(new pvmSerial.CreateSubnetTx(pBase(), owners([OTHER_ADDRESS], 5n, 1)), 1);
    const dcs = decodeInPBlock(cs);
    expect(dcs.txType).toBe("CreateSubnetTx");
    checkInputs(dcs, cs, [P_BASE_IN]);
    checkOutputs(dcs, cs, "PVM", [P_BASE_OUT()]);
    expect(dcs.details).toEqual({subnetOwner: {locktime: 5n, threshold: 1, addresses: [OTHER_ADDRESS]}});

    const vmId = seeded("vm");
    const fx = seeded("fx");
    const genesis = new TextEncoder().encode('{"config":{}}');
    const cc = sign(
      new pvmSerial.CreateChainTx(
        pBase(),
        new Id(SUBNET),
        new Stringpr("mychain"),
        new Id(vmId),
        [new Id(fx)],
        new Bytes(genesis),
        subnetAuth([0]),
      ),
      2,
    );
    const dcc = decodeInPBlock(cc);
    expect(dcc.txType).toBe("CreateChainTx");
    checkInputs(dcc, cc, [P_BASE_IN]);
    expect(dcc.details.subnetId).toBe(cb58Encode(SUBNET));
    expect(dcc.details.chain).toEqual({
      chainName: "mychain",
      vmId: cb58Encode(vmId),
      fxIds: [cb58Encode(fx)],
      genesisData: genesis,
    });
    expect(dcc.details.extra!.subnetAuthSigIndices).toEqual([0]);
    checkAuthCredential(dcc, cc);

    const asv = sign(
      new pvmSerial.AddSubnetValidatorTx(
        pBase(),
        new pvmSerial.SubnetValidator(validator(1_000n, 2_000n, 10n), new Id(SUBNET)),
        subnetAuth([0]),
      ),
      2,
    );
    const dasv = decodeInPBlock(asv);
    expect(dasv.txType).toBe("AddSubnetValidatorTx");
    checkOutputs(dasv, asv, "PVM", [P_BASE_OUT()]);
    expect(dasv.details.staker).toEqual({
      kind: "subnetValidator",
      nodeId: NODE_ID,
      subnetId: cb58Encode(SUBNET),
      startTime: null,
      endTime: 2_000n,
      weight: 10n,
      rewardOwner: null,
      delegationRewardOwner: null,
      delegationShares: 0,
      bls: null,
    });
    expect(dasv.details.extra!.startTime).toBe("1000");
    checkAuthCredential(dasv, asv);

    const rsv = sign(
      new pvmSerial.RemoveSubnetValidatorTx(pBase(), new NodeId(NODE), new Id(SUBNET), subnetAuth([0])),
      2,
    );
    const drsv = decodeInPBlock(rsv);
    expect(drsv.txType).toBe("RemoveSubnetValidatorTx");
    expect(drsv.details.subnetId).toBe(cb58Encode(SUBNET));
    expect(drsv.details.extra!.nodeId).toBe(NODE_ID);
    checkAuthCredential(drsv, rsv);

    const tso = sign(
      new pvmSerial.TransferSubnetOwnershipTx(pBase(), new Id(SUBNET), subnetAuth([0]), owners([OTHER_ADDRESS])),
      2,
    );
    const dtso = decodeInPBlock(tso);
    expect(dtso.txType).toBe("TransferSubnetOwnershipTx");
    expect(dtso.details.subnetId).toBe(cb58Encode(SUBNET));
    expect(dtso.details.subnetOwner).toEqual({locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]});
    checkAuthCredential(dtso, tso);

    const asset = seeded("subnet-asset");
    const ts = sign(
      new pvmSerial.TransformSubnetTx(
        pBase(),
        new Id(SUBNET),
        new Id(asset),
        new BigIntPr(1n),
        new BigIntPr(2n),
        new BigIntPr(3n),
        new BigIntPr(4n),
        new BigIntPr(5n),
        new BigIntPr(6n),
        new Int(7),
        new Int(8),
        new Int(9),
        new BigIntPr(10n),
        new Byte(new Uint8Array([11])),
        new Int(12),
        subnetAuth([0]),
      ),
      2,
    );
    const dts = decodeInPBlock(ts);
    expect(dts.txType).toBe("TransformSubnetTx");
    const {authCredentials: _auth, ...rest} = dts.details.extra!;
    expect(rest).toEqual({
      assetId: cb58Encode(asset),
      initialSupply: "1",
      maximumSupply: "2",
      minConsumptionRate: "3",
      maxConsumptionRate: "4",
      minValidatorStake: "5",
      maxValidatorStake: "6",
      minStakeDuration: 7,
      maxStakeDuration: 8,
      minDelegationFee: 9,
      minDelegatorStake: "10",
      maxValidatorWeightFactor: 11,
      uptimeRequirement: 12,
      subnetAuthSigIndices: [0],
    });
    checkAuthCredential(dts, ts);
  });

  it("RewardValidatorTx and AdvanceTimeTx in proposal blocks; commit, abort and option blocks", () => {
    const staking = seeded("staking-tx");
    // avalanchejs 5.2.0 does not export RewardValidatorTx: type 20 ‖ staking tx ID ‖ no credentials.
    const rewardSigned = new Writer().u16(0).u32(20).fixed(staking).u32(0).finish();
    const reward: SignedFixture = {
      signed: rewardSigned,
      unsigned: rewardSigned.subarray(0, 38),
      signature: new Uint8Array(0),
      txId: sha256(rewardSigned),
      txIdString: cb58Encode(sha256(rewardSigned)),
    };
    const c = decodePrimaryContainer("P", "block", wrap(banffProposal(reward.signed)), CTX);
    expect(c.blockType).toBe("Proposal");
    expect(c.timestamp).toBe(BigInt(BLOCK_TIME));
    expect(c.parentId).toBe(cb58Encode(PARENT));
    expect(c.height).toBe(11n);
    // Decision txs (a field no block has used so far) come before the proposal tx.
    const decision = sign(new pvmSerial.BaseTx(pBase()), 1);
    const withDecision = decodePrimaryContainer("P", "block", banffProposal(reward.signed, [decision.signed]), CTX);
    expect(withDecision.txs.map((t) => t.id)).toEqual([decision.txIdString, reward.txIdString]);
    expect(withDecision.height).toBe(11n);
    const r = checkTx(c.txs[0]!, reward, "P");
    expect(r.txType).toBe("RewardValidatorTx");
    expect(r.details).toEqual({rewardedTxId: cb58Encode(staking)});
    expect(r.inputs).toEqual([]);
    expect(r.outputs).toEqual([]);

    const advance = sign(new pvmSerial.AdvanceTimeTx(new BigIntPr(1_600_000_000n)), 0);
    const a = decodePrimaryContainer("P", "block", apricotOneTx(0, advance.signed), CTX);
    expect(a.blockType).toBe("Proposal");
    expect(a.proposer).toBeNull();
    expect(a.timestamp).toBeNull();
    expect(checkTx(a.txs[0]!, advance, "P").txType).toBe("AdvanceTimeTx");
    expect(a.txs[0]!.details.extra).toEqual({time: "1600000000"});

    for (const [typeId, name] of [
      [1, "Abort"],
      [2, "Commit"],
      [30, "Abort"],
      [31, "Commit"],
    ] as const) {
      const inner = decisionBlock(typeId);
      const opt = decodePrimaryContainer("P", "block", wrapOption(inner), CTX);
      expect(opt.blockType).toBe(name);
      expect(opt.txs).toEqual([]);
      expect(opt.height).toBe(14n);
      expect(opt.parentId).toBe(cb58Encode(PARENT));
      expect(opt.proposer!.proposerId).toBe(cb58Encode(sha256(wrapOption(inner))));
      expect(opt.proposer!.proposerNodeId).toBe("");
      expect(opt.timestamp).toBe(typeId >= 30 ? BigInt(BLOCK_TIME) : null);
    }
  });

  it("Apricot standard and atomic blocks, bare and wrapped", () => {
    const imp = sign(new pvmSerial.ImportTx(pBase(), new Id(X_CHAIN), [transferIn(IN_TX2, 1, AVAX, 8n)]), 2);
    const base = sign(new pvmSerial.BaseTx(pBase("second")), 1);
    const atomic = decodePrimaryContainer("P", "block", apricotOneTx(4, imp.signed), CTX);
    expect(atomic.blockType).toBe("Atomic");
    expect(atomic.txs.map((t) => t.id)).toEqual([imp.txIdString]);
    const std = decodePrimaryContainer("P", "block", wrap(apricotStandard([imp.signed, base.signed])), CTX);
    expect(std.blockType).toBe("Standard");
    expect(std.txs.map((t) => t.id)).toEqual([imp.txIdString, base.txIdString]);
    expect(std.timestamp).toBe(BigInt(WRAPPER_TIME)); // Apricot blocks have no time: the wrapper's
    expect(std.proposer).toEqual({
      proposerId: cb58Encode(sha256(wrap(apricotStandard([imp.signed, base.signed])).subarray(0, -4))),
      proposerParentId: cb58Encode(WRAPPER_PARENT),
      proposerNodeId: "",
      proposerPChainHeight: 77n,
      proposerTimestamp: BigInt(WRAPPER_TIME),
    });
  });

  it("a signed proposervm block: the proposer's NodeID from its certificate", () => {
    const base = sign(new pvmSerial.BaseTx(pBase()), 1);
    const cert = seeded("certificate-der");
    const bytes = wrapSigned(banffStandard([base.signed]), cert);
    const c = decodePrimaryContainer("P", "block", bytes, CTX);
    expect(c.proposer!.proposerNodeId).toBe(`NodeID-${cb58Encode(ripemd160(sha256(cert)))}`);
    expect(c.proposer!.proposerPChainHeight).toBe(78n);
    // The ID hashes everything but the signature (u32 length ‖ 32 bytes).
    expect(c.proposer!.proposerId).toBe(cb58Encode(sha256(bytes.subarray(0, bytes.length - 36))));
    expect(c.sizeBytes).toBe(bytes.length);
    expect(c.containerId).toBe(CTX.containerId);
    const granite = wrapGranite(banffStandard([base.signed]), cert);
    const g = decodePrimaryContainer("P", "block", granite, CTX);
    expect(g.proposer).toEqual({
      ...c.proposer,
      proposerId: cb58Encode(sha256(granite.subarray(0, granite.length - 36))),
      proposerPChainHeight: 79n,
    });
    expect(g.txs).toEqual(c.txs);
  });

  it("Etna: ConvertSubnetToL1Tx with validation IDs and the conversion ID", () => {
    const k0 = blsKey(4);
    const k1 = blsKey(5);
    const node1 = seeded("node1").subarray(0, 20);
    const manager = seeded("manager").subarray(0, 20);
    const chainId = seeded("l1-chain");
    const pco = (a: Uint8Array, t = 1): PChainOwner => new PChainOwner(new Int(t), [new Address(a)]);
    const vals = [
      new L1Validator(
        new Bytes(NODE),
        new BigIntPr(100n),
        new BigIntPr(1_000n),
        new pvmSerial.ProofOfPossession(k0.publicKey, k0.pop),
        pco(ADDRESS),
        pco(OTHER_ADDRESS),
      ),
      new L1Validator(
        new Bytes(node1),
        new BigIntPr(200n),
        new BigIntPr(2_000n),
        new pvmSerial.ProofOfPossession(k1.publicKey, k1.pop),
        pco(OTHER_ADDRESS),
        pco(ADDRESS),
      ),
    ];
    const f = sign(
      new pvmSerial.ConvertSubnetToL1Tx(
        pBase(),
        new Id(SUBNET),
        new Id(chainId),
        new Bytes(manager),
        vals,
        subnetAuth([0]),
      ),
      2,
    );
    const d = decodeInPBlock(f);
    expect(d.txType).toBe("ConvertSubnetToL1Tx");
    checkInputs(d, f, [P_BASE_IN]);
    checkOutputs(d, f, "PVM", [P_BASE_OUT()]);
    checkAuthCredential(d, f);
    expect(d.details.subnetId).toBe(cb58Encode(SUBNET));
    const conv = d.details.conversion!;
    expect(conv.chainId).toBe(cb58Encode(chainId));
    expect(hex(conv.managerAddress)).toBe(hex(manager));
    const vid = (i: number): string => cb58Encode(sha256(new Uint8Array([...SUBNET, 0, 0, 0, i])));
    expect(conv.validators).toEqual([
      {
        validationId: vid(0),
        nodeId: NODE_ID,
        weight: 100n,
        balance: 1_000n,
        bls: {publicKey: hex(k0.publicKey), proofOfPossession: hex(k0.pop)},
        remainingBalanceOwner: {locktime: 0n, threshold: 1, addresses: [ADDRESS]},
        deactivationOwner: {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]},
      },
      {
        validationId: vid(1),
        nodeId: `NodeID-${cb58Encode(node1)}`,
        weight: 200n,
        balance: 2_000n,
        bls: {publicKey: hex(k1.publicKey), proofOfPossession: hex(k1.pop)},
        remainingBalanceOwner: {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]},
        deactivationOwner: {locktime: 0n, threshold: 1, addresses: [ADDRESS]},
      },
    ]);
    // conversionID = sha256(codec bytes of SubnetToL1ConversionData), laid out here by hand.
    const data = new Writer().u16(0).fixed(SUBNET).fixed(chainId).bytesU32(manager).u32(2);
    data.bytesU32(NODE).fixed(k0.publicKey).u64(100n).bytesU32(node1).fixed(k1.publicKey).u64(200n);
    expect(conv.conversionId).toBe(cb58Encode(sha256(data.finish())));
  });

  it("the conversion ID matches AvalancheGo's test vector layout", () => {
    const seq = (from: number, n: number): Uint8Array => Uint8Array.from({length: n}, (_, i) => from + i);
    const expected = sha256(
      new Uint8Array([
        0,
        0,
        ...seq(0x01, 32),
        ...seq(0x21, 32),
        0,
        0,
        0,
        1,
        0x41,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0x14,
        ...seq(0x42, 20),
        ...seq(0x56, 48),
        ...seq(0x86, 8),
      ]),
    );
    const id = subnetToL1ConversionId(seq(0x01, 32), seq(0x21, 32), new Uint8Array([0x41]), [
      {nodeId: seq(0x42, 20), blsPublicKey: seq(0x56, 48), weight: 0x868788898a8b8c8dn},
    ]);
    expect(hex(id)).toBe(hex(expected));
  });

  it("Etna: RegisterL1ValidatorTx and SetL1ValidatorWeightTx carry warp messages", () => {
    const key = blsKey(6);
    const warpCodec = pvmSerial.warp.getWarpManager().getDefaultCodec();
    const reg = new pvmSerial.warp.AddressedCallPayloads.RegisterL1ValidatorMessage(
      new Id(SUBNET),
      new NodeId(NODE),
      BlsPublicKey.fromPublicKeyBytes(key.publicKey),
      new BigIntPr(1_800_000_000n),
      new PChainOwner(new Int(1), [new Address(ADDRESS)]),
      new PChainOwner(new Int(1), [new Address(OTHER_ADDRESS)]),
      new BigIntPr(42n),
    );
    const regBytes = new Uint8Array([0, 0, ...reg.toBytes(warpCodec)]);
    const warpOf = (payload: Uint8Array): Uint8Array => {
      const call = new pvmSerial.warp.AddressedCallPayloads.AddressedCall(new Address(manager20), new Bytes(payload));
      const unsigned = new pvmSerial.warp.WarpUnsignedMessage(
        new Int(NETWORK_ID),
        new Id(seeded("l1-chain")),
        new Bytes(new Uint8Array([0, 0, ...call.toBytes(warpCodec)])),
      );
      const sig = new pvmSerial.warp.WarpSignature(
        new Bytes(new Uint8Array([1])),
        BlsSignature.fromSignatureBytes(key.sign(new Uint8Array([1]))),
      );
      return new Uint8Array([0, 0, ...new pvmSerial.warp.WarpMessage(unsigned, sig).toBytes(warpCodec)]);
    };
    const manager20 = seeded("manager").subarray(0, 20);
    const message = warpOf(regBytes);
    const f = sign(
      new pvmSerial.RegisterL1ValidatorTx(
        pBase(),
        new BigIntPr(5_000n),
        BlsSignature.fromSignatureBytes(key.pop),
        new Bytes(message),
      ),
      1,
    );
    const d = decodeInPBlock(f);
    expect(d.txType).toBe("RegisterL1ValidatorTx");
    checkInputs(d, f, [P_BASE_IN]);
    checkOutputs(d, f, "PVM", [P_BASE_OUT()]);
    expect(hex(d.details.warpMessage!)).toBe(hex(message));
    expect(d.details.subnetId).toBe(cb58Encode(SUBNET));
    expect(d.details.l1Validator).toEqual({
      validationId: cb58Encode(sha256(regBytes)),
      nodeId: NODE_ID,
      weight: 42n,
      balance: 5_000n,
      bls: {publicKey: hex(key.publicKey), proofOfPossession: hex(key.pop)},
      remainingBalanceOwner: {locktime: 0n, threshold: 1, addresses: [ADDRESS]},
      deactivationOwner: {locktime: 0n, threshold: 1, addresses: [OTHER_ADDRESS]},
    });
    expect(d.details.extra).toEqual({expiry: "1800000000"});

    const validationId = seeded("validation");
    const weight = new pvmSerial.warp.AddressedCallPayloads.L1ValidatorWeightMessage(
      new Id(validationId),
      new BigIntPr(3n),
      new BigIntPr(77n),
    );
    const wmsg = warpOf(new Uint8Array([0, 0, ...weight.toBytes(warpCodec)]));
    const fw = sign(new pvmSerial.SetL1ValidatorWeightTx(pBase(), new Bytes(wmsg)), 1);
    const dw = decodeInPBlock(fw);
    expect(dw.txType).toBe("SetL1ValidatorWeightTx");
    checkInputs(dw, fw, [P_BASE_IN]);
    expect(hex(dw.details.warpMessage!)).toBe(hex(wmsg));
    expect(dw.details.l1Validator).toEqual({validationId: cb58Encode(validationId), nonce: 3n, weight: 77n});
  });

  it("Etna: IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx", () => {
    const validationId = seeded("validation");
    const inc = sign(
      new pvmSerial.IncreaseL1ValidatorBalanceTx(pBase(), new Id(validationId), new BigIntPr(9_000n)),
      1,
    );
    const di = decodeInPBlock(inc);
    expect(di.txType).toBe("IncreaseL1ValidatorBalanceTx");
    checkInputs(di, inc, [P_BASE_IN]);
    checkOutputs(di, inc, "PVM", [P_BASE_OUT()]);
    expect(di.details).toEqual({l1Validator: {validationId: cb58Encode(validationId), balance: 9_000n}});

    const dis = sign(new pvmSerial.DisableL1ValidatorTx(pBase(), new Id(validationId), subnetAuth([0])), 2);
    const dd = decodeInPBlock(dis);
    expect(dd.txType).toBe("DisableL1ValidatorTx");
    checkInputs(dd, dis, [P_BASE_IN]);
    expect(dd.details.l1Validator).toEqual({validationId: cb58Encode(validationId)});
    expect(dd.details.extra!.disableAuthSigIndices).toEqual([0]);
    checkAuthCredential(dd, dis);
  });
});

describe("X transactions built with avalanchejs", () => {
  const xBase = (): avaxSerial.BaseTx =>
    avaxBase(X_CHAIN, [transferOut(AVAX, 3_000_000_000n)], [transferIn(IN_TX, 2, AVAX, 10_000_000_000n)]);

  it("BaseTx, in a block, standalone and in a vertex with two parents", () => {
    const f = sign(new avmSerial.BaseTx(xBase()), 1);
    const d = decodeInXBlock(f);
    expect(d.txType).toBe("BaseTx");
    checkInputs(d, f, [P_BASE_IN]);
    checkOutputs(d, f, "AVM", [P_BASE_OUT()]);
    const parents = [seeded("p0"), seeded("p1")];
    const vtxBytes = vertex(parents, [f.signed]);
    const v = decodePrimaryContainer("X", "vtx", vtxBytes, CTX);
    expect(v.blockId).toBe(cb58Encode(sha256(vtxBytes)));
    expect(v.parentIds).toEqual(parents.map(cb58Encode));
    expect(v.parentId).toBe(cb58Encode(parents[0]!));
    expect(v.height).toBe(30n);
    expect(v.timestamp).toBeNull();
    expect(v.txs).toEqual([d]);
    // The stop vertex (codec v1): chain, height, parents; no epoch and no txs.
    const stop = new Writer().u16(1).fixed(X_CHAIN).u64(31n).u32(1).fixed(sha256(vtxBytes)).finish();
    const sv = decodePrimaryContainer("X", "vtx", stop, CTX);
    expect([sv.height, sv.parentIds, sv.txs]).toEqual([31n, [cb58Encode(sha256(vtxBytes))], []]);
    const b = decodePrimaryContainer("X", "block", wrap(avmBlock([f.signed])), CTX);
    expect(b.height).toBe(20n);
    expect(b.timestamp).toBe(BigInt(BLOCK_TIME));
    expect(b.parentId).toBe(cb58Encode(PARENT));
  });

  it("CreateAssetTx: initial-state outputs follow the regular ones, of the new asset", () => {
    const mint = new MintOutput(owners([OTHER_ADDRESS]));
    const initial = new TransferOutput(new BigIntPr(1_000_000n), owners([ADDRESS]));
    const f = sign(
      new avmSerial.CreateAssetTx(xBase(), new Stringpr("Token"), new Stringpr("TKN"), new Byte(new Uint8Array([6])), [
        new avmSerial.InitialState(new Int(0), [initial, mint]),
      ]),
      1,
      "AVM",
    );
    const d = decodeInXBlock(f);
    expect(d.txType).toBe("CreateAssetTx");
    expect(d.details.asset).toEqual({name: "Token", symbol: "TKN", denomination: 6});
    checkInputs(d, f, [P_BASE_IN]);
    checkOutputs(d, f, "AVM", [
      P_BASE_OUT(),
      {asset: f.txId, amount: 1_000_000n, out: initial},
      {asset: f.txId, amount: 0n, addresses: [OTHER_ADDRESS], utxoType: "MINT", out: mint},
    ]);
  });

  it("OperationTx: secp mint and nft mint operations (hand-framed ops after an avalanchejs base)", () => {
    // avalanchejs 5.2.0 exports neither TransferableOp nor the nft fx: the ops are laid out here.
    const base = new avmSerial.BaseTx(xBase());
    const baseUnsigned = utils.packTx(base); // 0x0000 ‖ type 0 ‖ base fields
    const asset = seeded("asset");
    const nftAsset = seeded("nft-asset");
    const ops = new Writer().u32(2);
    // secp256k1fx.MintOperation (8): input, MintOutput, TransferOutput
    ops.fixed(asset).u32(1).fixed(IN_TX2).u32(0).u32(8).u32(1).u32(0);
    ops.u64(0n).u32(1).u32(1).fixed(ADDRESS); // mint output owners
    ops.u64(500n).u64(0n).u32(1).u32(1).fixed(OTHER_ADDRESS); // transfer output
    // nftfx.MintOperation (12): input, group 3, payload, [owners]
    ops
      .fixed(nftAsset)
      .u32(1)
      .fixed(IN_TX2)
      .u32(1)
      .u32(12)
      .u32(1)
      .u32(0)
      .u32(3)
      .bytesU32(new Uint8Array([9, 9]))
      .u32(1)
      .u64(0n)
      .u32(1)
      .u32(1)
      .fixed(OTHER_ADDRESS);
    const unsigned = new Writer().u16(0).u32(2).fixed(baseUnsigned.subarray(6)).fixed(ops.finish()).finish();
    const sig = signBytes(unsigned);
    const signed = new Writer().fixed(unsigned).u32(3);
    for (let i = 0; i < 3; i++)
      signed
        .u32(i === 2 ? 14 : 9)
        .u32(1)
        .fixed(sig);
    const bytes = signed.finish();
    const c = decodePrimaryContainer("X", "tx", bytes, CTX);
    const d = c.txs[0]!;
    const txId = sha256(bytes);
    expect(d.id).toBe(cb58Encode(txId));
    expect(d.txType).toBe("OperationTx");
    expect(d.inputs.map((i) => [i.txId, i.outputIndex, i.assetId, i.amount])).toEqual([
      [cb58Encode(IN_TX), 2, cb58Encode(AVAX), 10_000_000_000n],
      [cb58Encode(IN_TX2), 0, cb58Encode(asset), 0n],
      [cb58Encode(IN_TX2), 1, cb58Encode(nftAsset), 0n],
    ]);
    for (const i of d.inputs) expect(hex(i.credentials[0]!.publicKey!)).toBe(hex(PUBLIC_KEY));
    expect(
      d.outputs.map((o) => [o.outputIndex, o.utxoId, o.assetId, o.amount, o.utxoType, o.groupId, hex(o.payload)]),
    ).toEqual([
      [0, expectedUtxoId(txId, 0), cb58Encode(AVAX), 3_000_000_000n, "TRANSFER", 0, ""],
      [1, expectedUtxoId(txId, 1), cb58Encode(asset), 0n, "MINT", 0, ""],
      [2, expectedUtxoId(txId, 2), cb58Encode(asset), 500n, "TRANSFER", 0, ""],
      [3, expectedUtxoId(txId, 3), cb58Encode(nftAsset), 0n, "NFT_TRANSFER", 3, "0909"],
    ]);
    // The NFT UTXO is an nftfx.TransferOutput (11): group ‖ payload ‖ owners.
    expect(hex(d.outputs[3]!.utxoBytes)).toBe(
      hex(
        new Writer()
          .u16(0)
          .fixed(txId)
          .u32(3)
          .fixed(nftAsset)
          .u32(11)
          .u32(3)
          .bytesU32(new Uint8Array([9, 9]))
          .u64(0n)
          .u32(1)
          .u32(1)
          .fixed(OTHER_ADDRESS)
          .finish(),
      ),
    );
  });

  it("ImportTx and ExportTx", () => {
    const imp = sign(new avmSerial.ImportTx(xBase(), new Id(C_CHAIN), [transferIn(IN_TX2, 4, AVAX, 9n)]), 2);
    const di = decodeInXBlock(imp);
    expect(di.txType).toBe("ImportTx");
    checkInputs(di, imp, [P_BASE_IN, {txId: IN_TX2, index: 4, asset: AVAX, amount: 9n, importedFrom: C_CHAIN}]);
    checkOutputs(di, imp, "AVM", [P_BASE_OUT()]);
    expect(di.sourceChain).toBe(cb58Encode(C_CHAIN));

    const out = new TransferOutput(new BigIntPr(1_234n), owners([OTHER_ADDRESS]));
    const exp = sign(new avmSerial.ExportTx(xBase(), new Id(P_CHAIN), [new TransferableOutput(new Id(AVAX), out)]), 1);
    const de = decodeInXBlock(exp);
    expect(de.txType).toBe("ExportTx");
    checkOutputs(de, exp, "AVM", [
      P_BASE_OUT(),
      {asset: AVAX, amount: 1_234n, addresses: [OTHER_ADDRESS], exportedTo: P_CHAIN, out},
    ]);
    expect(de.destinationChain).toBe(cb58Encode(P_CHAIN));
  });
});

describe("C atomic transactions built with avalanchejs", () => {
  const evmAddr = seeded("evm").subarray(0, 20);
  const importTx = (): SignedFixture =>
    sign(
      new evmSerial.ImportTx(
        new Int(NETWORK_ID),
        new Id(C_CHAIN),
        new Id(X_CHAIN),
        [transferIn(IN_TX, 2, AVAX, 10_000n)],
        [new evmSerial.Output(new Address(evmAddr), new BigIntPr(9_000n), new Id(AVAX))],
      ),
      1,
    );
  const exportOut = new TransferOutput(new BigIntPr(8_000n), owners([ADDRESS]));
  const exportTx = (): SignedFixture =>
    sign(
      new evmSerial.ExportTx(
        new Int(NETWORK_ID),
        new Id(C_CHAIN),
        new Id(P_CHAIN),
        [new evmSerial.Input(new Address(evmAddr), new BigIntPr(9_000n), new Id(AVAX), new BigIntPr(5n))],
        [new TransferableOutput(new Id(AVAX), exportOut)],
      ),
      1,
    );
  const cBlock = (extData: Uint8Array): Uint8Array =>
    buildEvmBlock({parentHash: seeded("eth-parent"), height: 99, timestamp: BLOCK_TIME, txs: 1, seed: 1, extData});

  function checkImport(d: PrimaryTx, f: SignedFixture): void {
    checkTx(d, f, "C");
    expect(d.txType).toBe("ImportTx");
    checkInputs(d, f, [{txId: IN_TX, index: 2, asset: AVAX, amount: 10_000n, importedFrom: X_CHAIN}]);
    expect(d.outputs).toEqual([]);
    expect(d.evmOutputs).toEqual([
      {address: evmAddr, assetId: cb58Encode(AVAX), amount: 9_000n, nonce: 0n, credentials: []},
    ]);
    expect(d.evmInputs).toEqual([]);
    expect(d.sourceChain).toBe(cb58Encode(X_CHAIN));
    expect(d.memo).toHaveLength(0);
  }

  function checkExport(d: PrimaryTx, f: SignedFixture): void {
    checkTx(d, f, "C");
    expect(d.txType).toBe("ExportTx");
    expect(d.inputs).toEqual([]);
    expect(d.evmInputs).toHaveLength(1);
    const e = d.evmInputs[0]!;
    expect([hex(e.address), e.assetId, e.amount, e.nonce]).toEqual([hex(evmAddr), cb58Encode(AVAX), 9_000n, 5n]);
    expect(hex(e.credentials[0]!.publicKey!)).toBe(hex(PUBLIC_KEY));
    expect(hex(e.credentials[0]!.signature)).toBe(hex(f.signature));
    // The exported outputs are numbered from 0: a C export has no regular outputs.
    checkOutputs(d, f, "EVM", [{asset: AVAX, amount: 8_000n, exportedTo: P_CHAIN, out: exportOut}]);
    expect(d.destinationChain).toBe(cb58Encode(P_CHAIN));
  }

  it("one atomic tx in extData (before Apricot Phase 5)", () => {
    const f = importTx();
    const bytes = wrap(cBlock(f.signed));
    const c = decodePrimaryContainer("C", "block", bytes, CTX);
    const header = buildEvmBlock({
      parentHash: seeded("eth-parent"),
      height: 99,
      timestamp: BLOCK_TIME,
      txs: 1,
      seed: 1,
      extData: f.signed,
    });
    expect(c.blockId.startsWith("0x")).toBe(true);
    expect(c.blockId).toHaveLength(66);
    expect(c.parentId).toBe(`0x${hex(seeded("eth-parent"))}`);
    expect(c.height).toBe(99n);
    expect(c.timestamp).toBe(BigInt(BLOCK_TIME));
    expect(header.length).toBeGreaterThan(0);
    expect(c.txs).toHaveLength(1);
    checkImport(c.txs[0]!, f);
  });

  it("a batch in extData (after Apricot Phase 5)", () => {
    const a = importTx();
    const b = exportTx();
    const batch = new Writer().u16(0).u32(2).fixed(a.signed.subarray(2)).fixed(b.signed.subarray(2)).finish();
    const c = decodePrimaryContainer("C", "block", cBlock(batch), CTX);
    expect(c.proposer).toBeNull();
    expect(c.txs).toHaveLength(2);
    checkImport(c.txs[0]!, a);
    checkExport(c.txs[1]!, b);
    // A batch of one export: its count (1) would be an ExportTx type ID in the single form.
    const one = new Writer().u16(0).u32(1).fixed(b.signed.subarray(2)).finish();
    const c1 = decodePrimaryContainer("C", "block", cBlock(one), CTX);
    checkExport(c1.txs[0]!, b);
  });

  it("the block ID is the EVM hash: keccak256 of the RLP header", () => {
    const bytes = cBlock(new Uint8Array(0));
    const c = decodePrimaryContainer("C", "block", bytes, CTX);
    expect(c.txs).toEqual([]);
    // The header's own bytes inside the block: after the block list's prefix, up to where the header item ends.
    const body = bytes.subarray(bytes[0]! >= 0xf8 ? 1 + bytes[0]! - 0xf7 : 1);
    const header = body.subarray(0, body.length - RLP.decode(body, true).remainder.length);
    expect(c.blockId).toBe(`0x${hex(keccak_256(header))}`);
  });
});

describe("malformed containers", () => {
  const base = sign(new pvmSerial.BaseTx(pBase()), 1);
  const good = wrap(banffStandard([base.signed]));

  function expectError(chain: "P" | "X" | "C", kind: "block" | "vtx" | "tx", bytes: Uint8Array): PrimaryDecodeError {
    try {
      decodePrimaryContainer(chain, kind, bytes, CTX);
    } catch (e) {
      expect(e).toBeInstanceOf(PrimaryDecodeError);
      expect((e as PrimaryDecodeError).reason.length).toBeGreaterThan(0);
      return e as PrimaryDecodeError;
    }
    throw new Error("decoded");
  }

  it("truncated at every length", () => {
    expect(decodePrimaryContainer("P", "block", good, CTX).txs).toHaveLength(1);
    for (let n = 0; n < good.length; n++) expectError("P", "block", good.subarray(0, n));
    const x = sign(
      new avmSerial.BaseTx(avaxBase(X_CHAIN, [transferOut(AVAX, 1n)], [transferIn(IN_TX, 0, AVAX, 2n)])),
      1,
    );
    for (let n = 0; n < x.signed.length; n++) expectError("X", "tx", x.signed.subarray(0, n));
  });

  it("trailing bytes", () => {
    expectError("P", "block", new Uint8Array([...good, 0]));
    const x = sign(
      new avmSerial.BaseTx(avaxBase(X_CHAIN, [transferOut(AVAX, 1n)], [transferIn(IN_TX, 0, AVAX, 2n)])),
      1,
    );
    expect(expectError("X", "tx", new Uint8Array([...x.signed, 1, 2])).reason).toMatch(/trailing/);
    expectError("X", "vtx", new Uint8Array([...vertex([seeded("p")], [x.signed]), 0]));
  });

  it("random bytes, for every chain and kind", () => {
    let seed = 1;
    const rnd = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 300; i++) {
      const b = Uint8Array.from({length: 1 + (rnd() % 400)}, () => rnd() & 0xff);
      for (const [chain, kind] of [
        ["P", "block"],
        ["X", "block"],
        ["C", "block"],
        ["X", "vtx"],
        ["X", "tx"],
      ] as const)
        expectError(chain, kind, b);
    }
  });

  it("a P/C tx or vtx kind, an unknown tx type, a property-less credential type", () => {
    expectError("P", "tx", base.signed);
    expectError("C", "vtx", base.signed);
    // Type 43 (past Helicon's 40-42: a later upgrade's tx) in a Banff block.
    const bytes = new Uint8Array(banffStandard([base.signed]));
    bytes[2 + 4 + 8 + 32 + 8 + 4 + 3] = 43;
    expect(expectError("P", "block", bytes).reason).toMatch(/43/);
    // A 65-byte signature whose v is not a recovery ID still decodes, with no public key.
    const x = sign(
      new avmSerial.BaseTx(avaxBase(X_CHAIN, [transferOut(AVAX, 1n)], [transferIn(IN_TX, 0, AVAX, 2n)])),
      1,
    );
    const bad = new Uint8Array(x.signed);
    bad[bad.length - 1] = 9;
    expect(decodePrimaryContainer("X", "tx", bad, CTX).txs[0]!.inputs[0]!.credentials[0]!.publicKey).toBeNull();
  });
});

describe("decode rate", () => {
  it("a block of 2-input/2-output signed BaseTxs, with and without key recovery", () => {
    const tx = sign(
      new pvmSerial.BaseTx(
        avaxBase(
          P_CHAIN,
          [transferOut(AVAX, 1n), transferOut(AVAX, 2n, [OTHER_ADDRESS])],
          [transferIn(IN_TX, 0, AVAX, 5n), transferIn(IN_TX2, 1, AVAX, 6n)],
        ),
      ),
      2,
    );
    const block = wrap(banffStandard(Array.from({length: 50}, () => tx.signed)));
    const rate = (ctx: {containerId: string; recoverPublicKeys?: boolean}): number => {
      let n = 0;
      const start = performance.now();
      while (performance.now() - start < 700) n += decodePrimaryContainer("P", "block", block, ctx).txs.length;
      return (n / (performance.now() - start)) * 1000;
    };
    const withKeys = rate(CTX);
    const withoutKeys = rate({...CTX, recoverPublicKeys: false});
    const noKeys = decodePrimaryContainer("P", "block", block, {...CTX, recoverPublicKeys: false});
    expect(noKeys.txs[0]!.inputs[0]!.credentials[0]!.publicKey).toBeNull();
    // Both inputs are the same key's: one recovery a tx (the signature is deterministic).
    console.log(
      `decode rate, 2-in/2-out signed BaseTx, 50 a block: ${Math.round(withKeys)} txs/s with key recovery, ${Math.round(withoutKeys)} txs/s without`,
    );
    expect(withoutKeys).toBeGreaterThan(withKeys);
  });
});

describe("repeatedId: the CB58 of repeated asset and chain IDs, kept", () => {
  it("equals cb58Encode for random IDs, IDs sharing their first four bytes and IDs asked again", () => {
    let seed = 12345;
    const byte = (): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed >>> 24;
    };
    const ids: Uint8Array[] = [];
    for (let i = 0; i < 200; i++) ids.push(Uint8Array.from({length: 32}, byte));
    // Same first four bytes (the cache's key), different rest.
    for (let i = 0; i < 50; i++) ids.push(Uint8Array.from([1, 2, 3, 4, ...Array.from({length: 28}, byte)]));
    for (let round = 0; round < 3; round++) {
      for (const id of ids) expect(repeatedId(id)).toBe(cb58Encode(id));
    }
    // The ID kept is a copy: a caller's buffer reused for another ID with the same first four bytes is encoded
    // afresh, not answered with the text kept for what the buffer held before.
    const buf = Uint8Array.from([9, 9, 9, 9, ...Array.from({length: 28}, byte)]);
    const before = cb58Encode(buf);
    expect(repeatedId(buf)).toBe(before);
    buf[31] ^= 0xff;
    expect(repeatedId(buf)).toBe(cb58Encode(buf));
    expect(repeatedId(buf)).not.toBe(before);
  });
});
