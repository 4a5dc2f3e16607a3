/**
 * The `method` of an EVM transaction (the Glacier SDK's `Method`; docs/api/evm.md): its call type, the 4-byte
 * selector and, when the selector is in the bundled table below, the function's name.
 *
 * `methodName` is the canonical signature, `transfer(address,uint256)`: the SDK documents it as "the contract method
 * name including parameter types", and the canonical text is also what the selector hashes, so a name can never
 * disagree with its hash. Structs appear as their canonical tuples. Per the SDK, a native transfer's name is
 * `Native Transfer` and a creation's `Contract Created`; `methodHash` is set only for CONTRACT_CALL ("" otherwise).
 */
import {selector} from "../../evm/abi.js";

export type TransactionMethodType = "NATIVE_TRANSFER" | "CONTRACT_CALL" | "CONTRACT_CREATION";

export interface Method {
  callType: TransactionMethodType;
  methodHash: string;
  methodName?: string;
}

// Teleporter v1.0.0 structs, canonical (TeleporterMessage, TeleporterMessageInput, TeleporterFeeInfo).
const TELEPORTER_FEE = "(address,uint256)";
const TELEPORTER_MESSAGE = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)";
const TELEPORTER_INPUT = `(bytes32,address,${TELEPORTER_FEE},uint256,address[],bytes)`;
// Uniswap V3 SwapRouter's params structs (with deadline) and SwapRouter02's (without).
const V3_SINGLE = "(address,address,uint24,address,uint256,uint256,uint256,uint160)";
const V3_PATH = "(bytes,address,uint256,uint256,uint256)";
const V3_SINGLE_02 = "(address,address,uint24,address,uint256,uint256,uint160)";
const V3_PATH_02 = "(bytes,address,uint256,uint256)";
const LB_PATH = "(uint256[],uint8[],address[])";

/** Human-readable signatures; the selectors are computed from them at load, so the table cannot hold a wrong hash. */
const KNOWN_SIGNATURES: readonly string[] = [
  // ERC-20 (and EIP-2612, OpenZeppelin extensions)
  "transfer(address,uint256)",
  "approve(address,uint256)",
  "transferFrom(address,address,uint256)", // also ERC-721's
  "increaseAllowance(address,uint256)",
  "decreaseAllowance(address,uint256)",
  "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
  "mint(address,uint256)",
  "burn(uint256)",
  "burnFrom(address,uint256)",
  // ERC-721
  "safeTransferFrom(address,address,uint256)",
  "safeTransferFrom(address,address,uint256,bytes)",
  "setApprovalForAll(address,bool)",
  "safeMint(address,uint256)",
  "safeMint(address)",
  // ERC-1155
  "safeTransferFrom(address,address,uint256,uint256,bytes)",
  "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
  "mint(address,uint256,uint256,bytes)",
  "mintBatch(address,uint256[],uint256[],bytes)",
  // WAVAX / WETH9
  "deposit()",
  "withdraw(uint256)",
  // Ownable
  "transferOwnership(address)",
  "renounceOwnership()",
  // TeleporterMessenger v1.0.0
  `sendCrossChainMessage(${TELEPORTER_INPUT})`,
  "receiveCrossChainMessage(uint32,address)",
  `retryMessageExecution(bytes32,${TELEPORTER_MESSAGE})`,
  `retrySendCrossChainMessage(${TELEPORTER_MESSAGE})`,
  "addFeeAmount(bytes32,address,uint256)",
  `sendSpecifiedReceipts(bytes32,bytes32[],${TELEPORTER_FEE},address[])`,
  "redeemRelayerRewards(address)",
  // Multicall, Multicall2, Multicall3
  "aggregate((address,bytes)[])",
  "tryAggregate(bool,(address,bytes)[])",
  "blockAndAggregate((address,bytes)[])",
  "tryBlockAndAggregate(bool,(address,bytes)[])",
  "aggregate3((address,bool,bytes)[])",
  "aggregate3Value((address,bool,uint256,bytes)[])",
  // Uniswap V2 router (ETH names) and Trader Joe / Pangolin V1 routers (AVAX names)
  ...["ETH", "AVAX"].flatMap((n) => [
    `addLiquidity${n}(address,uint256,uint256,uint256,address,uint256)`,
    `removeLiquidity${n}(address,uint256,uint256,uint256,address,uint256)`,
    `removeLiquidity${n}WithPermit(address,uint256,uint256,uint256,address,uint256,bool,uint8,bytes32,bytes32)`,
    `removeLiquidity${n}SupportingFeeOnTransferTokens(address,uint256,uint256,uint256,address,uint256)`,
    `swapExact${n}ForTokens(uint256,address[],address,uint256)`,
    `swapTokensForExact${n}(uint256,uint256,address[],address,uint256)`,
    `swapExactTokensFor${n}(uint256,uint256,address[],address,uint256)`,
    `swap${n}ForExactTokens(uint256,address[],address,uint256)`,
    `swapExact${n}ForTokensSupportingFeeOnTransferTokens(uint256,address[],address,uint256)`,
    `swapExactTokensFor${n}SupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)`,
  ]),
  "addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)",
  "removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)",
  "removeLiquidityWithPermit(address,address,uint256,uint256,uint256,address,uint256,bool,uint8,bytes32,bytes32)",
  "swapExactTokensForTokens(uint256,uint256,address[],address,uint256)",
  "swapTokensForExactTokens(uint256,uint256,address[],address,uint256)",
  "swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)",
  // LFJ (Trader Joe) Liquidity Book router v2.1+: Path is (pairBinSteps, versions, tokenPath)
  ...["Tokens", "NATIVE"].flatMap((out) => [
    `swapExactTokensFor${out}(uint256,uint256,${LB_PATH},address,uint256)`,
    `swapTokensForExact${out}(uint256,uint256,${LB_PATH},address,uint256)`,
    `swapExactTokensFor${out}SupportingFeeOnTransferTokens(uint256,uint256,${LB_PATH},address,uint256)`,
  ]),
  `swapExactNATIVEForTokens(uint256,${LB_PATH},address,uint256)`,
  `swapNATIVEForExactTokens(uint256,${LB_PATH},address,uint256)`,
  `swapExactNATIVEForTokensSupportingFeeOnTransferTokens(uint256,${LB_PATH},address,uint256)`,
  // Uniswap V3 SwapRouter, SwapRouter02, periphery helpers
  `exactInputSingle(${V3_SINGLE})`,
  `exactInput(${V3_PATH})`,
  `exactOutputSingle(${V3_SINGLE})`,
  `exactOutput(${V3_PATH})`,
  `exactInputSingle(${V3_SINGLE_02})`,
  `exactInput(${V3_PATH_02})`,
  `exactOutputSingle(${V3_SINGLE_02})`,
  `exactOutput(${V3_PATH_02})`,
  "multicall(bytes[])",
  "multicall(uint256,bytes[])",
  "multicall(bytes32,bytes[])",
  "unwrapWETH9(uint256,address)",
  "refundETH()",
  "sweepToken(address,uint256,address)",
  // Uniswap Universal Router
  "execute(bytes,bytes[],uint256)",
  "execute(bytes,bytes[])",
  // Safe (Gnosis Safe) wallets
  "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)",
];

const BY_SELECTOR: ReadonlyMap<string, string> = new Map(KNOWN_SIGNATURES.map((s) => [selector(s), s]));
// Two different signatures with one selector would make a name depend on table order: refuse to load instead.
if (BY_SELECTOR.size !== new Set(KNOWN_SIGNATURES).size)
  throw new Error("methods: two known signatures share a selector");

/** The known signature of a 4-byte selector (0x-hex, any case), if bundled. */
export function knownMethodName(methodHash: string): string | undefined {
  return BY_SELECTOR.get(methodHash.toLowerCase());
}

export function methodOf(tx: {to: string | null; input: string}): Method {
  const input = tx.input.toLowerCase().replace(/^0x/, "");
  if (tx.to === null) return {callType: "CONTRACT_CREATION", methodHash: "", methodName: "Contract Created"};
  if (input === "") return {callType: "NATIVE_TRANSFER", methodHash: "", methodName: "Native Transfer"};
  // Calldata shorter than a selector still called the contract (its fallback): its bytes are the best hash there is.
  const methodHash = "0x" + input.slice(0, 8);
  const methodName = knownMethodName(methodHash);
  return methodName === undefined
    ? {callType: "CONTRACT_CALL", methodHash}
    : {callType: "CONTRACT_CALL", methodHash, methodName};
}
