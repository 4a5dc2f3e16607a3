/**
 * What the EVM routes ask a chain's RPC rather than the store: a native balance (`eth_getBalance`, at the latest
 * block or a past one) and whether an address has code (`eth_getCode`). The routes get one reader from the
 * composition root (dataApi/service.ts) and turn its two failures into answers: a block the node cannot serve
 * (its own JSON-RPC error: past its head, pruned state) is about the request, an RPC that does not answer is not.
 */
import {toHex, toQuantity} from "../../evm/hex.js";
import {RpcCallError} from "../../evm/rpc.js";
import type {EvmChain} from "./chains.js";

/** The chain's node answered that it cannot serve state at this block. */
export class BlockNotServedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "BlockNotServedError";
  }
}

/** The chain's RPC did not answer (transport, HTTP or malformed answer). */
export class RpcUnansweredError extends Error {
  constructor(chain: string, method: string, cause: Error) {
    super(`the RPC of chain ${chain} did not answer ${method}: ${cause.message}`);
    this.name = "RpcUnansweredError";
  }
}

export interface EvmState {
  /** The native balance of `owner`, wei, at `block` (the latest when undefined). */
  nativeBalance(chain: EvmChain & {chainId: string}, owner: Uint8Array, block: bigint | undefined): Promise<bigint>;
  /** The code at `address` on the latest block (`0x` for none). */
  code(chain: EvmChain, address: Uint8Array): Promise<string>;
}

/** Each chain's own RPC client (EvmChain.rpc). */
export class EvmStateReader implements EvmState {
  async nativeBalance(c: EvmChain & {chainId: string}, owner: Uint8Array, block: bigint | undefined): Promise<bigint> {
    try {
      return BigInt(
        await c.rpc.call<string>("eth_getBalance", [toHex(owner), block === undefined ? "latest" : toQuantity(block)]),
      );
    } catch (e) {
      if (block !== undefined && e instanceof RpcCallError && e.kind === "rpc")
        throw new BlockNotServedError((e as Error).message.replace(/^eth_getBalance: /, ""));
      throw new RpcUnansweredError(c.chainId, "eth_getBalance", e as Error);
    }
  }

  async code(c: EvmChain, address: Uint8Array): Promise<string> {
    try {
      return await c.rpc.call<string>("eth_getCode", [toHex(address), "latest"]);
    } catch (e) {
      throw new RpcUnansweredError(String(c.chainId ?? c.blockchainId), "eth_getCode", e as Error);
    }
  }
}
