// A seeded pseudo-random generator for reproducible randomized tests and demos.

/**
 * mulberry32: a tiny, fast 32-bit PRNG. The same seed always yields the same sequence of numbers in
 * [0, 1), so a failing randomized test is replayed by its seed.
 * @example const rand = seededRandom(42); const pick = items[Math.floor(rand() * items.length)];
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
