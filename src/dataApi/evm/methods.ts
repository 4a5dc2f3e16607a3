/** The `method` of an EVM transaction (glacier-sdk `Method`): native transfer, contract creation, or a call by selector. */
export interface Method {
  callType: "NATIVE_TRANSFER" | "CONTRACT_CALL" | "CONTRACT_CREATION";
  methodHash: string;
  methodName?: string;
}

export function methodOf(tx: {to: string | null; input: string}): Method {
  if (tx.to === null) return {callType: "CONTRACT_CREATION", methodHash: "", methodName: "Contract Created"};
  if (tx.input === "0x" || tx.input === "") return {callType: "NATIVE_TRANSFER", methodHash: "", methodName: "Native Transfer"};
  return {callType: "CONTRACT_CALL", methodHash: tx.input.slice(0, 10)};
}
