/**
 * The EVM chains the data API follows (`--evm-rpc`, or the dev network's own EVM): how each is named in paths
 * (`/v1/chains/{chainId}`: the EVM chain ID, the blockchain ID, or an alias of the C-chain), its RPC, its
 * follower (absent in a `serve` process), and what `/v1/chains` says of it.
 */
import type {NetworkInfo} from "../../chains/index.js";
import type {EvmRpc, RpcGuard} from "../../evm/rpc.js";
import type {NetworkToken} from "../models/evm/index.js";
import type {EvmFollower} from "../views/evm/follower.js";
import {badRequest, notFound} from "../server/errors.js";

/** The C-chain's EVM chain ID per network (coreth's params): mainnet 43114, fuji 43113, local 43112. */
export const C_CHAIN_EVM_IDS: Record<string, string> = {mainnet: "43114", fuji: "43113", local: "43112"};

export const AVAX_TOKEN: NetworkToken = {
  name: "Avalanche",
  symbol: "AVAX",
  decimals: 18,
  description: "AVAX is the native token of the Avalanche C-chain",
};

export interface EvmChainSpec {
  /** As given: `C`, an EVM chain ID (decimal) or a blockchain ID (CB58). */
  name: string;
  url: string;
  /** The URL when it can change (the dev network's EVM after a restart); read at every request. */
  urlOf?: () => string;
  /** What its requests run through (the dev network's EVMs: EvmRpcModules.guard). */
  guard?: RpcGuard;
}

export interface EvmChain {
  /** The EVM chain ID (decimal); null until an L1 named by its blockchain ID has answered eth_chainId. */
  chainId: string | null;
  blockchainId: string | null;
  isCChain: boolean;
  rpc: EvmRpc;
  follower: EvmFollower | null;
  networkToken: NetworkToken;
}

/** What the store says of a chain (evm_chains): how a `serve` process, which runs no follower, knows it. */
export interface StoredChainState {
  chainId: string;
  blockchainId: string | null;
  head: bigint | null;
  traces: boolean;
}

export class EvmChains {
  private stored: StoredChainState[] = [];
  private storedAt = 0;

  constructor(
    readonly network: NetworkInfo,
    readonly chains: EvmChain[],
    /** Reads evm_chains; null in a process that follows (its followers know better). */
    private readonly readStored: (() => Promise<StoredChainState[]>) | null = null,
  ) {}

  /** Refreshes what the store says of the chains (a serve process; at most every 2 s). */
  async refresh(): Promise<void> {
    if (!this.readStored || Date.now() - this.storedAt < 2000) return;
    this.stored = await this.readStored();
    this.storedAt = Date.now();
  }

  /** The store's state of a chain (serve processes), or null. */
  storedState(c: EvmChain): StoredChainState | null {
    return (
      this.stored.find(
        (s) =>
          (c.chainId !== null && s.chainId === c.chainId) ||
          (c.blockchainId !== null && s.blockchainId === c.blockchainId),
      ) ?? null
    );
  }

  /** Identity of a spec before its RPC answers: what the name alone says. */
  static identity(
    spec: EvmChainSpec,
    network: NetworkInfo,
  ): {chainId: string | null; blockchainId: string | null; isCChain: boolean} {
    if (spec.name === "C" || spec.name === network.chainIds.C)
      return {chainId: C_CHAIN_EVM_IDS[network.name] ?? null, blockchainId: network.chainIds.C, isCChain: true};
    if (/^[0-9]+$/.test(spec.name))
      return {chainId: spec.name, blockchainId: null, isCChain: spec.name === C_CHAIN_EVM_IDS[network.name]};
    return {chainId: null, blockchainId: spec.name, isCChain: false};
  }

  chainIdOf(c: EvmChain): string | null {
    return c.chainId ?? c.follower?.status().chainId ?? this.storedState(c)?.chainId ?? null;
  }

  /** The chain's blockchain ID (CB58): configured, learned by its follower, or stored; null when not known. */
  blockchainIdOf(c: EvmChain): string | null {
    return c.blockchainId ?? c.follower?.status().blockchainId ?? this.storedState(c)?.blockchainId ?? null;
  }

  /** The EVM chain ID of a followed chain given its blockchain ID (CB58), or null. */
  evmChainIdOfBlockchain(blockchainId: string): string | null {
    for (const c of this.chains) if (this.blockchainIdOf(c) === blockchainId) return this.chainIdOf(c);
    return null;
  }

  /** Whether the chain's RPC serves call traces (null: not known yet). */
  traces(c: EvmChain): boolean | null {
    return c.follower ? c.follower.status().traces : (this.storedState(c)?.traces ?? null);
  }

  /** The `{chainId}` path parameter: 404 for a chain not followed here, 400 for a malformed one. */
  resolve(param: string): EvmChain & {chainId: string} {
    if (!/^[0-9A-Za-z-]{1,64}$/.test(param))
      throw badRequest("chainId", `not an EVM chain ID, blockchain ID or alias: ${JSON.stringify(param)}`);
    const alias = param.toLowerCase() === "c-chain" || param === "C";
    for (const c of this.chains) {
      const id = this.chainIdOf(c);
      if (id !== null && (param === id || param === this.blockchainIdOf(c) || (alias && c.isCChain)))
        return {...c, chainId: id};
    }
    const followed = this.chains.map((c) => this.chainIdOf(c) ?? c.blockchainId).join(", ");
    throw notFound(
      `chain ${param} is not followed here${followed ? ` (followed: ${followed})` : " (no EVM chain is followed: see --evm-rpc)"}`,
    );
  }
}
