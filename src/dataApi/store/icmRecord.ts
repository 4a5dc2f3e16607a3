/**
 * The value of icm_messages.record (store/schema.ts): what views/evm/icmFold.ts writes of a message and
 * queries/icm.ts reads back, the one shape both sides hold to.
 */

/** Everything the answer needs but the EVM chain IDs and the fee token's metadata (joined then). */
export interface IcmRecord {
  messageId: string;
  icmContractAddress: string;
  sourceBlockchainId: string;
  destinationBlockchainId: string;
  /** The followed chain (EVM chain ID) each end was seen on, when seen. */
  sourceChainId: string | null;
  destinationChainId: string | null;
  messageNonce: string;
  from: string;
  to: string;
  data: string;
  messageExecuted: boolean;
  receipts: Array<{receivedMessageNonce: string; relayerRewardAddress: string}>;
  receiptDelivered: boolean;
  fee: {token: string; amount: string};
  sourceTransaction?: {txHash: string; timestamp: number; gasSpent: string};
  destinationTransaction?: {
    txHash: string;
    timestamp: number;
    gasSpent: string;
    rewardRedeemer: string;
    delivererAddress: string;
  };
  status: "pending" | "delivered" | "delivered_source_not_indexed";
}
