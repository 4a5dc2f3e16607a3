/** A seeded pseudo-random generator in [0, 1) (a 32-bit LCG): the same seed gives the same test data on every run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
