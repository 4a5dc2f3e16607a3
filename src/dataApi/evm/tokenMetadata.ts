/**
 * A token contract's kind and metadata by `eth_call` (docs/api/evm.md): ERC-165 for ERC-721 and ERC-1155,
 * `decimals` plus `totalSupply`/`symbol` for ERC-20, `name`/`symbol` as `string` or, for legacy tokens (MKR, SAI),
 * as `bytes32`. A contract's answers are untrusted input: reverts, garbage and huge strings make a field absent,
 * never an exception, so one misbehaving contract cannot stop indexing.
 */
import {decodeAbi, encodeCall, selector} from "../../evm/abi.js";
import {hexToBytes} from "../../evm/hex.js";
import {RpcCallError} from "../../evm/rpc.js";
import {substituteTokenId} from "./nftMetadata.js";

export type ErcType = "ERC-20" | "ERC-721" | "ERC-1155" | "UNKNOWN";

export interface TokenMetadata {
  ercType: ErcType;
  name?: string;
  symbol?: string;
  decimals?: number;
}

/** `eth_call`: the return data as 0x-hex, or a throw (revert, transport). */
export type EthCall = (to: string, data: string, block?: string) => Promise<string>;

/**
 * An EthCall through a follower's RPC for readers that take a contract's failures as answers: a revert (the node's
 * JSON-RPC error) is the contract's answer, while `down()` names a failure of the RPC itself (transport, HTTP,
 * garbage) during any call, so the caller retries later instead of storing an answer it could not read.
 */
export function rpcEthCall(
  rpc: {call<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T>},
  signal?: AbortSignal,
): {call: EthCall; down: () => Error | null} {
  let down: Error | null = null;
  const call: EthCall = async (to, data, block) => {
    try {
      return await rpc.call<string>("eth_call", [{to, data}, block ?? "latest"], signal);
    } catch (e) {
      if (!(e instanceof RpcCallError) || e.kind !== "rpc") down = e as Error;
      throw e;
    }
  };
  return {call, down: () => down};
}

/** Longest name or symbol kept, in code points (a contract may return megabytes). */
export const MAX_STRING_CHARS = 256;

const ERC165_ID = "0x01ffc9a7";
const ERC721_ID = "0x80ac58cd";
const ERC1155_ID = "0xd9b67a26";

async function tryCall(call: EthCall, to: string, data: string, block?: string): Promise<Uint8Array | undefined> {
  try {
    const out = await call(to, data, block);
    return typeof out === "string" ? hexToBytes(out) : undefined;
  } catch {
    return undefined;
  }
}

function decodeOr<T>(data: Uint8Array | undefined, f: (d: Uint8Array) => T): T | undefined {
  if (data === undefined) return undefined;
  try {
    return f(data);
  } catch {
    return undefined;
  }
}

const utf8 = new TextDecoder("utf-8", {fatal: true});

/** Valid UTF-8 without NULs (PostgreSQL text refuses them), capped; undefined when empty or not text. */
function cleanText(b: Uint8Array): string | undefined {
  const s = utf8.decode(b);
  if (s === "" || s.includes("\0")) return undefined;
  const cps = Array.from(s); // code points, so the cap never splits a surrogate pair
  return cps.length > MAX_STRING_CHARS ? cps.slice(0, MAX_STRING_CHARS).join("") : s;
}

/** A `string` return value, else a `bytes32` one right-trimmed of zero bytes. */
export function decodeTextResult(data: Uint8Array): string | undefined {
  const asString = decodeOr(data, (d) => cleanText(decodeAbi(["bytes"], d)[0] as Uint8Array));
  if (asString !== undefined) return asString;
  return decodeOr(data, (d) => {
    // Exactly one word: a longer answer that failed as `string` is garbage, not a legacy token.
    if (d.length !== 32) return undefined;
    let end = 32;
    while (end > 0 && d[end - 1] === 0) end--;
    return cleanText(d.subarray(0, end));
  });
}

export async function readTokenMetadata(call: EthCall, address: string, block?: string): Promise<TokenMetadata> {
  const read = (data: string): Promise<Uint8Array | undefined> => tryCall(call, address, data, block);
  const supports = async (id: string): Promise<boolean> =>
    decodeOr(
      await read(encodeCall("supportsInterface(bytes4)", ["bytes32"], [id.padEnd(66, "0")])),
      (d) => decodeAbi(["bool"], d)[0] === true,
    ) ?? false;
  // All at once: they are independent, and an RPC round trip dominates.
  const [is165, claimsAll, is721, is1155, name, symbol, decimals, totalSupply] = await Promise.all([
    supports(ERC165_ID),
    // EIP-165's own check: 0xffffffff must be refused, so a contract answering `true` to everything is not ERC-165.
    supports("0xffffffff"),
    supports(ERC721_ID),
    supports(ERC1155_ID),
    read(selector("name()")).then((d) => decodeOr(d, decodeTextResult)),
    read(selector("symbol()")).then((d) => decodeOr(d, decodeTextResult)),
    read(selector("decimals()")).then((d) => decodeOr(d, (x) => decodeAbi(["uint8"], x)[0] as number)),
    read(selector("totalSupply()")).then((d) => decodeOr(d, (x) => decodeAbi(["uint256"], x)[0] as bigint)),
  ]);
  const texts = {...(name !== undefined && {name}), ...(symbol !== undefined && {symbol})};
  const erc165 = is165 && !claimsAll;
  // NFTs rarely have decimals: absent, the hosted API shows 0.
  if (erc165 && is721) return {ercType: "ERC-721", ...texts, decimals: decimals ?? 0};
  if (erc165 && is1155) return {ercType: "ERC-1155", ...texts, decimals: decimals ?? 0};
  if (decimals !== undefined && (totalSupply !== undefined || symbol !== undefined))
    return {ercType: "ERC-20", ...texts, decimals};
  return {ercType: "UNKNOWN", ...texts};
}

/** Longest token URI kept: on-chain NFTs put whole base64 JSON (SVG images included) in it. */
export const MAX_TOKEN_URI_BYTES = 2 * 1024 * 1024;

/**
 * An NFT's token URI: ERC-721 `tokenURI(id)`, ERC-1155 `uri(id)` with `{id}` substituted. Undefined when the call
 * reverts (often: no such token) or answers no UTF-8 string; surrounding whitespace is kept for the fetcher to trim.
 */
export async function readTokenUri(
  call: EthCall,
  address: string,
  ercType: "ERC-721" | "ERC-1155",
  tokenId: bigint,
  block?: string,
): Promise<string | undefined> {
  const signature = ercType === "ERC-721" ? "tokenURI(uint256)" : "uri(uint256)";
  const data = await tryCall(call, address, encodeCall(signature, ["uint256"], [tokenId]), block);
  const uri = decodeOr(data, (d) => {
    const b = decodeAbi(["bytes"], d)[0] as Uint8Array;
    if (b.length > MAX_TOKEN_URI_BYTES) return undefined;
    const s = utf8.decode(b);
    return s.includes("\0") ? undefined : s;
  });
  // The cap holds after substitution too: `{id}` × 524,288 is 2 MiB as returned and 32 MiB substituted.
  return uri !== undefined && ercType === "ERC-1155" ? substituteTokenId(uri, tokenId, MAX_TOKEN_URI_BYTES) : uri;
}
