/**
 * The owners of recently created UTXOs, so that a spend finds its UTXO's owner without reading the store: most UTXOs
 * are spent a while after their creation (change, the next transfer), and a read is one index probe a spend in the
 * store's thread. Bounded, oldest evicted; a spent UTXO leaves (it is spent once). What is not here is read.
 */
export class UtxoOwners {
  private readonly owners = new Map<string, Uint8Array[]>();
  hits = 0;
  misses = 0;

  constructor(private readonly max = 100_000) {}

  add(utxoId: string, addresses: Uint8Array[]): void {
    if (this.max === 0) return;
    if (this.owners.size >= this.max && !this.owners.has(utxoId)) {
      const oldest = this.owners.keys().next();
      if (!oldest.done) this.owners.delete(oldest.value);
    }
    this.owners.set(utxoId, addresses);
  }

  /** Moves the owners held of `ids` into `out`; returns the IDs not held. */
  take(ids: readonly string[], out: Map<string, Uint8Array[]>): string[] {
    const missing: string[] = [];
    for (const id of ids) {
      const o = this.owners.get(id);
      if (o === undefined) {
        missing.push(id);
        continue;
      }
      out.set(id, o);
      this.owners.delete(id);
    }
    this.hits += ids.length - missing.length;
    this.misses += missing.length;
    return missing;
  }

  get size(): number {
    return this.owners.size;
  }
}
