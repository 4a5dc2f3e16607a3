/**
 * Signature aggregation (defs/signatures.ts declares it): `POST /v1/signatureAggregator/{network}/aggregateSignatures`
 * takes an unsigned warp message of the served network, asks the signing subnet's canonical validator set at a
 * P-chain height for signatures, checks each against its validator's key before it counts, and answers the signed
 * message once quorum (plus the buffer) is reached. When the local sources do not reach quorum and an external
 * aggregator is configured, the request goes there and its answer is checked against this node's own canonical set
 * before it is returned (502 naming the upstream and the reason otherwise); with none, 503 naming what was
 * collected and who refused.
 */
import {bytesToHex, hexToBytes} from "../../evm/hex.js";
import type {NetworkInfo} from "../../chains/index.js";
import {
  VerifiedSignatures,
  aggregate,
  verifySignedMessage,
  type AggregateResult,
  type SignatureSource,
} from "../../warp/aggregator.js";
import {parseUnsignedMessage, pChainUnsignedMessage} from "../../warp/message.js";
import {cb58Encode, EMPTY_ID, idFromString} from "../../util/cb58.js";
import type {SqlClient} from "../store/sql.js";
import {implement, type BoundRoute} from "../server/route.js";
import {l1ValidatorState, pChainTransaction} from "../queries/signatures.js";
import {SIGNATURE_ROUTES} from "./defs/signatures.js";
import {DataApiError, badRequest, notFound, unavailable} from "../server/errors.js";
import type {IncomingMessage} from "node:http";
import {resolveNetwork} from "../server/names.js";
import {HeightError, NoPChainStateError, type ValidatorSets} from "../signatures/validatorSets.js";
import type {ExternalAggregator} from "../signatures/externalAggregator.js";

export interface SignatureRoutesModules {
  sql: SqlClient;
  network: NetworkInfo;
  /** Where signatures come from (the dev network's validators; validator nodes' warp RPC). */
  sources: SignatureSource[];
  /** Canonical sets and chains' subnets (the P-chain view, or a P-chain node with --platform-rpc). */
  validatorSets: ValidatorSets;
  /** Asked when the sources do not reach quorum (--signature-aggregator-url); its answer is verified here. */
  external: ExternalAggregator | null;
}

const DEFAULT_QUORUM = 67;

/** The signature aggregation routes (defs/signatures.ts). */
export function signatureRoutes(m: SignatureRoutesModules): BoundRoute[] {
  const verified = new VerifiedSignatures();
  /**
   * Aggregates `unsigned` with `subnetId`'s set at `height`: the signed message, 201 as the hosted API answers both
   * endpoints (chainkit's aggregateSignatures and getAggregatedSignatures accept only 201); 503 naming what was
   * collected; 502 when the external aggregator fails.
   */
  const aggregateFor = async (
    req: IncomingMessage,
    unsigned: Uint8Array,
    subnetId: string,
    height: bigint,
    quorum: number,
    buffer: number,
    justification: Uint8Array | undefined,
  ): Promise<{signedMessage: string}> => {
    let at;
    try {
      at = await m.validatorSets.setAt(subnetId, height);
    } catch (e) {
      if (e instanceof NoPChainStateError) throw unavailable(e.message);
      if (e instanceof HeightError) throw badRequest("pChainHeight", e.message);
      throw e;
    }
    if (at.set.validators.length === 0)
      throw unavailable(`subnet ${subnetId} has no validator with a BLS key at P-chain height ${at.height}`);
    if (m.sources.length === 0 && !m.external)
      throw unavailable(
        `no signature source is configured for network ${m.network.name} (see --warp-signer-urls and --signature-aggregator-url)`,
      );
    return withRequestSignal(req, async (signal) => {
      let result: AggregateResult | null = null;
      if (m.sources.length > 0) {
        result = await aggregate({
          unsigned,
          set: at.set,
          quorumNum: quorum,
          bufferPercent: buffer,
          sources: m.sources,
          justification,
          signal,
          verified,
        });
        if (result.ok) return {signedMessage: bytesToHex(result.signed)};
      }
      if (m.external) {
        const ext = m.external;
        const signed = await ext.signedMessage(
          {unsigned, justification, subnetId, quorumPercentage: quorum, pChainHeight: at.height},
          signal,
        );
        const v = verifySignedMessage(signed, at.set, quorum, unsigned);
        if (!v.ok)
          throw ext.fail(
            `its signed message does not verify against subnet ${subnetId}'s validators at P-chain height ${at.height}: ${v.reason}`,
          );
        return {signedMessage: bytesToHex(signed)};
      }
      const r = result as Extract<AggregateResult, {ok: false}>; // sources ran and fell short; no aggregator
      const pct = (w: bigint): string => (r.totalWeight === 0n ? "0" : ((w * 100n) / r.totalWeight).toString());
      const refusals =
        r.refusals.length > 0
          ? `; ${r.refusals.length} validators refused: ${[...new Set(r.refusals.map((x) => x.reason))].join("; ")}`
          : "";
      throw new DataApiError(
        503,
        `collected ${pct(r.collectedWeight)}% of subnet ${subnetId} at P-chain height ${at.height}, ${quorum}% required${refusals}`,
      );
    });
  };

  return implement(SIGNATURE_ROUTES, {
    // The P-chain's message for an L1 transaction, signed by the L1's validators.
    getAggregatedSignatures: async (ctx) => {
      resolveNetwork(ctx.params.network, m.network);
      const txId = ctx.params.txHash;
      try {
        idFromString(txId);
      } catch {
        throw badRequest("txHash", `not a transaction ID (CB58): ${JSON.stringify(txId)}`);
      }
      const tx = await pChainTransaction(m.sql, txId);
      if (!tx) throw notFound(`P-chain transaction ${txId} not found`);
      const d = tx.details;
      const id = (cb58: string): Uint8Array => idFromString(cb58);
      switch (tx.tx_type) {
        case "ConvertSubnetToL1Tx": {
          if (!d.subnetId || !d.conversion) throw badRequest("txHash", `${txId} carries no conversion`);
          const unsigned = pChainUnsignedMessage(m.network.id, {
            type: "SubnetToL1Conversion",
            conversionId: id(d.conversion.conversionId),
          });
          return aggregateFor(ctx.req, unsigned, d.subnetId, 0n, DEFAULT_QUORUM, 0, id(d.subnetId));
        }
        case "RegisterL1ValidatorTx": {
          const v = d.l1Validator;
          if (!v || !d.subnetId) throw badRequest("txHash", `${txId} carries no validator`);
          const row = await l1ValidatorState(m.sql, v.validationId);
          if (!row || BigInt(row.weight) === 0n)
            throw badRequest(
              "txHash",
              `validator ${v.validationId} is no longer registered: its L1ValidatorRegistration(false) needs the RegisterL1ValidatorMessage as justification (POST the message)`,
            );
          const unsigned = pChainUnsignedMessage(m.network.id, {
            type: "L1ValidatorRegistration",
            validationId: id(v.validationId),
            registered: true,
          });
          return aggregateFor(ctx.req, unsigned, d.subnetId, 0n, DEFAULT_QUORUM, 0, undefined);
        }
        case "SetL1ValidatorWeightTx": {
          const v = d.l1Validator;
          if (!v) throw badRequest("txHash", `${txId} carries no validator`);
          const row = await l1ValidatorState(m.sql, v.validationId);
          if (!row) throw badRequest("txHash", `validator ${v.validationId} is not known`);
          const nonce = BigInt(v.nonce ?? 0);
          const weight = BigInt(v.weight ?? 0);
          if (row.nonce !== nonce || BigInt(row.weight) !== weight)
            throw badRequest(
              "txHash",
              `not the validator's current weight: its current nonce is ${row.nonce} (weight ${row.weight})`,
            );
          const unsigned = pChainUnsignedMessage(m.network.id, {
            type: "L1ValidatorWeight",
            validationId: id(v.validationId),
            nonce,
            weight,
          });
          return aggregateFor(ctx.req, unsigned, row.subnet_id, 0n, DEFAULT_QUORUM, 0, undefined);
        }
        default:
          throw badRequest(
            "txHash",
            `a ${tx.tx_type} has no P-chain warp message (ConvertSubnetToL1Tx, RegisterL1ValidatorTx and SetL1ValidatorWeightTx have)`,
          );
      }
    },

    aggregateSignatures: async (ctx) => {
      resolveNetwork(ctx.params.network, m.network);
      const body = ctx.body;
      if (body === null || typeof body !== "object" || Array.isArray(body))
        throw badRequest("body", "must be a JSON object");
      const b = body as Record<string, unknown>;
      const hexField = (name: string): Uint8Array | undefined => {
        const v = b[name];
        if (v === undefined || v === null || v === "") return undefined;
        if (typeof v !== "string" || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v))
          throw badRequest(name, "must be hex (0x optional)");
        return hexToBytes(v);
      };
      const intField = (name: string, min: number, max: number, dflt: number): number => {
        const v = b[name];
        if (v === undefined || v === null) return dflt;
        if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
          throw badRequest(name, `must be an integer in [${min},${max}]`);
        return v;
      };
      const message = hexField("message");
      const justification = hexField("justification");
      if (!message)
        throw badRequest(
          "message",
          justification ? "required: a justification alone names nothing to sign" : "required",
        );
      let unsigned;
      try {
        unsigned = parseUnsignedMessage(message);
      } catch (e) {
        throw badRequest("message", `not an unsigned warp message: ${(e as Error).message}`);
      }
      if (unsigned.networkId !== m.network.id)
        throw badRequest(
          "message",
          `its network ID is ${unsigned.networkId}, this node serves network ${m.network.id} (${m.network.name})`,
        );
      const quorum = intField("quorumPercentage", 0, 100, 0) || DEFAULT_QUORUM;
      const buffer = intField("quorumPercentageBuffer", 0, 100, 0);
      if (quorum + buffer > 100)
        throw badRequest(
          "quorumPercentageBuffer",
          `quorumPercentage + quorumPercentageBuffer must be at most 100 (${quorum} + ${buffer})`,
        );
      const height =
        b.pChainHeight === undefined || b.pChainHeight === null
          ? 0n
          : BigInt(intField("pChainHeight", 0, Number.MAX_SAFE_INTEGER, 0));
      let subnetId: string;
      if (b.signingSubnetId !== undefined && b.signingSubnetId !== null && b.signingSubnetId !== "") {
        if (typeof b.signingSubnetId !== "string")
          throw badRequest("signingSubnetId", "must be a subnet ID (CB58 or hex)");
        subnetId = parseId("signingSubnetId", b.signingSubnetId);
      } else {
        const source = cb58Encode(unsigned.sourceChainId);
        const isP = unsigned.sourceChainId.every((x) => x === 0);
        const found = isP ? EMPTY_ID : await m.validatorSets.subnetOf(source);
        if (found === null)
          throw badRequest(
            "signingSubnetId",
            `required: the subnet validating source chain ${source} is not known here`,
          );
        subnetId = found;
      }
      return aggregateFor(ctx.req, message, subnetId, height, quorum, buffer, justification);
    },
  });
}

/** Runs `fn` with a signal aborted when the client goes away (its connection closes). */
async function withRequestSignal<T>(req: IncomingMessage, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const socket = req.socket;
  const onClose = (): void => ac.abort(new Error("client disconnected"));
  socket?.once("close", onClose);
  try {
    return await fn(ac.signal);
  } finally {
    socket?.off("close", onClose);
  }
}

/** A 32-byte ID given as CB58 or hex (0x optional), as CB58; 400 naming the field otherwise. */
function parseId(field: string, v: string): string {
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(v)) return cb58Encode(hexToBytes(v));
  try {
    idFromString(v);
    return v;
  } catch {
    throw badRequest(field, `not an ID (CB58 or 64 hex digits): ${JSON.stringify(v)}`);
  }
}
