/**
 * The incomplete-index rules (AvalancheGo indexer/indexer.go; docs/api/index.md, Incomplete index), as a
 * pure decision per chain plus the flags it persists. A refusal is fatal at start-up (exit 1).
 */
import {ChainFlag} from "../db/buckets.js";
import {CHAIN_NAMES, type ChainName} from "../chains/index.js";
import type {IndexStore} from "./store.js";

export interface ChainIndexState {
  incomplete: boolean;
  previouslyIndexed: boolean;
}

export type IndexDecision =
  | {ok: true; markIncomplete: boolean; markPreviouslyIndexed: boolean}
  | {ok: false; message: string};

export class IncompleteIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IncompleteIndexError";
  }
}

export function decide(
  enabled: boolean,
  allowIncomplete: boolean,
  hasRunBefore: boolean,
  s: ChainIndexState,
): IndexDecision {
  if (!enabled) {
    if (s.previouslyIndexed && !allowIncomplete) {
      return {
        ok: false,
        message:
          "running would cause index to become incomplete but incomplete indices are disabled: this database was indexed " +
          "before; start with --index-enabled=true, or with --index-allow-incomplete=true to accept an incomplete index",
      };
    }
    return {ok: true, markIncomplete: !s.incomplete, markPreviouslyIndexed: false};
  }
  if (!allowIncomplete && s.incomplete && (s.previouslyIndexed || hasRunBefore)) {
    return {
      ok: false,
      message:
        "index is incomplete but incomplete indices are disabled: this database ran with --index-enabled=false before; " +
        "start with --index-allow-incomplete=true to index anyway, or use a fresh --db-dir for a complete index",
    };
  }
  return {ok: true, markIncomplete: false, markPreviouslyIndexed: !s.previouslyIndexed};
}

/** Applies the rules to every chain and persists the flags; throws IncompleteIndexError on refusal. */
export async function checkIncompleteIndex(
  store: IndexStore,
  enabled: boolean,
  allowIncomplete: boolean,
): Promise<void> {
  const hasRunBefore = (await store.getMeta("hasRun")) !== null;
  // Every chain is decided before any flag is written: a refusal on a later chain must not leave an earlier one
  // marked (say, incomplete) by a run that never started.
  const decisions: {chain: ChainName; d: IndexDecision}[] = [];
  for (const chain of CHAIN_NAMES) {
    const state = {
      incomplete: await store.getFlag(chain, ChainFlag.incomplete),
      previouslyIndexed: await store.getFlag(chain, ChainFlag.previouslyIndexed),
    };
    const d = decide(enabled, allowIncomplete, hasRunBefore, state);
    if (!d.ok) throw new IncompleteIndexError(d.message);
    decisions.push({chain, d});
  }
  for (const {chain, d} of decisions) {
    if (!d.ok) continue;
    if (d.markIncomplete) await store.setFlag(chain, ChainFlag.incomplete);
    if (d.markPreviouslyIndexed) await store.setFlag(chain, ChainFlag.previouslyIndexed);
  }
  await store.setMeta("hasRun");
}
