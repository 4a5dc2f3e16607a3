/** SignerKeys: keys from the cache of signers equal the keys a full recovery gives, credential by credential. */
import {expect, it} from "vitest";
import {NETWORKS} from "../../../../../src/chains/index.js";
import {decodePrimaryContainer} from "../../../../../src/dataApi/views/primary/decode.js";
import {SignerKeys} from "../../../../../src/dataApi/views/primary/signerKeys.js";
import {makeKeys, xHistory} from "../../../../../src/dev/syntheticHistory.js";
import {idFromString, idToString} from "../../../../../src/util/cb58.js";
import {prng} from "../../../../helpers/prng.js";

const network = NETWORKS.local;
const AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe";

it("fills every input credential with the key a recovery gives, recovering an address's key once", () => {
  const keys = makeKeys(6, "signer-keys-test");
  const blocks = [
    ...xHistory({
      txs: 300,
      txsPerBlock: 3,
      keys,
      networkId: network.id,
      chainId: idFromString(network.chainIds.X),
      assetId: idFromString(AVAX),
      startSeconds: 1_700_000_000,
      random: prng(3),
    }),
  ];
  const cache = new SignerKeys();
  // Owners as the view knows them: every output decoded so far; the genesis UTXOs are unknown (recovered).
  const owners = new Map<string, Uint8Array[]>();
  let credentials = 0;
  let withOwner = 0;
  for (const b of blocks) {
    const ctx = {containerId: idToString(b.id)};
    const full = decodePrimaryContainer("X", "block", b.bytes, ctx);
    const deferred = decodePrimaryContainer("X", "block", b.bytes, {...ctx, deferInputKeys: true});
    deferred.txs.forEach((t, ti) => {
      t.inputs.forEach((input, ii) => {
        expect(input.credentials.every((c) => c.publicKey === null)).toBe(true);
        const owner = owners.get(input.utxoId);
        if (owner) withOwner++;
        const recovered = cache.fill(input, owner, t.unsignedHash);
        const want = full.txs[ti]!.inputs[ii]!.credentials;
        expect(input.credentials.map((c) => Buffer.from(c.publicKey!).toString("hex"))).toEqual(
          want.map((c) => Buffer.from(c.publicKey!).toString("hex")),
        );
        // Without a known owner the signer comes from a recovery, and is reported.
        if (!owner) expect(recovered.length).toBeGreaterThan(0);
        credentials += want.length;
      });
      for (const o of t.outputs) owners.set(o.utxoId, o.owner.addresses);
    });
  }
  expect(withOwner).toBeGreaterThan(100);
  expect(cache.hits + cache.recovered).toBe(credentials);
  // Six keys: recoveries only for the spends of unknown (genesis) UTXOs and each key's first known spend.
  expect(cache.hits).toBeGreaterThan(credentials - 100);
});

it("recovers when the cache is full, the owner is unknown, or sigIndices point past the owner's addresses", () => {
  const keys = makeKeys(2, "signer-keys-test-2");
  const [b] = [
    ...xHistory({
      txs: 1,
      txsPerBlock: 1,
      keys,
      networkId: network.id,
      chainId: idFromString(network.chainIds.X),
      assetId: idFromString(AVAX),
      startSeconds: 1_700_000_000,
      random: prng(5),
    }),
  ];
  const full = decodePrimaryContainer("X", "block", b!.bytes, {containerId: idToString(b!.id)});
  const want = full.txs[0]!.inputs[0]!.credentials[0]!.publicKey!;
  const cache = new SignerKeys(1);
  for (const owner of [undefined, [] as Uint8Array[]]) {
    const t = decodePrimaryContainer("X", "block", b!.bytes, {containerId: idToString(b!.id), deferInputKeys: true})
      .txs[0]!;
    cache.fill(t.inputs[0]!, owner, t.unsignedHash);
    expect(t.inputs[0]!.credentials[0]!.publicKey).toEqual(want);
  }
  expect(cache.recovered).toBe(2);
});
