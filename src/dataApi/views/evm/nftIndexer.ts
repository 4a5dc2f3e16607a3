/**
 * NFT metadata (docs/api/evm.md): a lane behind the EVM follower that takes the NFTs it has seen but not
 * indexed, reads each token's URI (`tokenURI` / `uri` with `{id}`) by eth_call, fetches the metadata (`data:`,
 * `ipfs://` through the gateway, `http(s)` with the SSRF guard, 1 MiB, 10 s) and stores it with the hosted API's
 * `indexStatus`. A token URI that cannot be read or fetched is a status, not an error; an RPC that does not
 * answer leaves the token for the next round.
 */
import {sleep} from "../../../util/sleep.js";
import type {Logger} from "../../../logger/index.js";
import type {SqlClient} from "../../store/sql.js";
import type {EvmRpc} from "../../../evm/rpc.js";
import {toHex} from "../../../evm/hex.js";
import {readTokenUri, rpcEthCall} from "../../evm/tokenMetadata.js";
import {fetchNftMetadata, type NftFetchOptions} from "../../evm/nftMetadata.js";

export interface NftIndexerOptions extends NftFetchOptions {
  /** Tokens fetched at once. */
  concurrency: number;
  /** Pause when there is nothing to index, ms. */
  idleMs: number;
}

export const defaultNftIndexerOptions: Omit<NftIndexerOptions, "ipfsGateway" | "allowPrivate"> = {
  concurrency: 4,
  idleMs: 1000,
};

export interface NftIndexerModules {
  sql: SqlClient;
  rpc: EvmRpc;
  logger: Logger;
  /** The chain's EVM chain ID, once its follower knows it. */
  chainId: () => string | null;
}

interface Pending {
  token: Uint8Array;
  token_id: string;
  erc: number;
  owner: Uint8Array | null;
}

export class NftIndexer {
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    private readonly opts: NftIndexerOptions,
    private readonly modules: NftIndexerModules,
  ) {}

  start(): void {
    this.running ??= this.run(this.abort.signal);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** Indexes one round of pending tokens; returns how many were settled. */
  async round(): Promise<number> {
    const chainId = this.modules.chainId();
    if (chainId === null) return 0;
    const pending = await this.modules.sql.query<Pending>(
      "SELECT token, token_id::text AS token_id, erc, owner FROM evm_nfts WHERE chain_id = $1 AND index_status = 'UNINDEXED' ORDER BY first_block LIMIT $2",
      [chainId, this.opts.concurrency * 4],
    );
    let done = 0;
    for (let i = 0; i < pending.length; i += this.opts.concurrency) {
      const settled = await Promise.all(pending.slice(i, i + this.opts.concurrency).map((p) => this.index(chainId, p)));
      done += settled.filter(Boolean).length;
    }
    return done;
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let n = 0;
      try {
        n = await this.round();
      } catch (err) {
        this.modules.logger.warn({err: (err as Error).message}, "NFT metadata round failed; retrying");
      }
      if (n === 0) await sleep(this.opts.idleMs, signal);
    }
  }

  /** Settles one token (true), or leaves it for later when the chain's RPC does not answer (false). */
  private async index(chainId: string, p: Pending): Promise<boolean> {
    const {call, down} = rpcEthCall(this.modules.rpc, this.abort.signal);
    const uri = await readTokenUri(call, toHex(p.token), p.erc === 721 ? "ERC-721" : "ERC-1155", BigInt(p.token_id));
    if (down()) return false;
    let status: string;
    let metadata: unknown = null;
    if (uri === undefined) {
      // A burned ERC-721 token has no URI any more; any other token whose URI call fails has an unusable one.
      status =
        p.erc === 721 && p.owner !== null && p.owner.every((b) => b === 0) ? "MISSING_TOKEN" : "INVALID_TOKEN_URI";
    } else {
      const r = await fetchNftMetadata(uri, this.opts);
      status = r.indexStatus;
      metadata = r.metadata ?? null;
      if (r.detail)
        this.modules.logger.debug(
          {token: toHex(p.token), tokenId: p.token_id, status, detail: r.detail},
          "NFT metadata not indexed",
        );
    }
    try {
      await this.store(chainId, p, uri ?? null, metadata, status);
    } catch (e) {
      // A data exception (SQLSTATE class 22: text or JSON the store refuses) is about this token, and would be met
      // again on every round: the token is settled as INVALID_METADATA, without it, so it never holds the lane.
      // Anything else (the store is down) leaves the token for the next round.
      if (!/^22/.test(String((e as {code?: unknown}).code ?? ""))) throw e;
      this.modules.logger.warn(
        {token: toHex(p.token), tokenId: p.token_id, err: (e as Error).message},
        "NFT metadata refused by the store; indexed as INVALID_METADATA",
      );
      await this.store(chainId, p, null, null, "INVALID_METADATA");
    }
    return true;
  }

  private async store(
    chainId: string,
    p: Pending,
    uri: string | null,
    metadata: unknown,
    status: string,
  ): Promise<void> {
    await this.modules.sql.query(
      `UPDATE evm_nfts SET token_uri = $4, metadata = $5::jsonb, index_status = $6, updated_at = $7
       WHERE chain_id = $1 AND token = $2 AND token_id = $3::numeric`,
      [
        chainId,
        p.token,
        p.token_id,
        uri,
        metadata === null ? null : JSON.stringify(metadata),
        status,
        BigInt(Math.floor(Date.now() / 1000)),
      ],
    );
  }
}
