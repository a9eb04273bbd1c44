// A consistent-hash ring: each member holds `virtualNodes` points on a 32-bit circle; a key belongs to the
// member of the first point at or after the key's hash.

/**
 * FNV-1a over the string's UTF-16 code units, then MurmurHash3's 32-bit finalizer. FNV-1a alone is fast but
 * mixes its last characters poorly, and ring points are names that differ only at the end (`replica-1#17`); the
 * finalizer spreads every input bit over the whole word, which the ring's balance depends on.
 */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** An immutable ring over a set of members. */
export class HashRing {
  /** The members, sorted. */
  readonly members: readonly string[];
  private readonly points: Uint32Array;
  private readonly owners: string[];

  /** @throws RangeError when `virtualNodes` is not a positive integer. */
  constructor(members: Iterable<string>, virtualNodes: number) {
    if (!Number.isInteger(virtualNodes) || virtualNodes <= 0)
      throw new RangeError(`HashRing: virtualNodes must be a positive integer, got ${virtualNodes}`);
    this.members = [...new Set(members)].sort();
    const all: Array<[number, string]> = [];
    for (const m of this.members) for (let i = 0; i < virtualNodes; i++) all.push([hash32(`${m}#${i}`), m]);
    // Two members on one point: the name decides, so every replica builds the same ring.
    all.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    this.points = Uint32Array.from(all, (p) => p[0]);
    this.owners = all.map((p) => p[1]);
  }

  /** The member owning `key`; undefined on an empty ring. */
  ownerOf(key: string): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }
}
