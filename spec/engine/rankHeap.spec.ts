import { describe, it, expect } from '@jest/globals';
import { RankHeap, type Ranked } from '../../src/engine/rankHeap.js';
import { seededRandom } from '../../src/testing/index.js';

const node = (uid: number, rank: number): Ranked => ({ uid, rank });

function drain(h: RankHeap<Ranked>): number[] {
  const out: number[] = [];
  for (let n = h.pop(); n !== undefined; n = h.pop()) out.push(n.uid);
  return out;
}

describe('RankHeap', () => {
  it('should pop by rank, then by uid', () => {
    const h = new RankHeap<Ranked>();
    for (const n of [node(5, 2), node(1, 3), node(4, 1), node(2, 2), node(3, 1)]) h.push(n);
    expect(h.size).toBe(5);
    expect(drain(h)).toEqual([3, 4, 2, 5, 1]);
    expect(h.size).toBe(0);
    expect(h.pop()).toBeUndefined();
  });

  it('should push an item whose rank grew while it waited back at its new rank', () => {
    const h = new RankHeap<Ranked>();
    const a = node(1, 1);
    const b = node(2, 2);
    const c = node(3, 3);
    h.push(a);
    h.push(b);
    h.push(c);
    a.rank = 5; // raised after it was queued (a transform started reading something ranked higher)
    expect(drain(h)).toEqual([2, 3, 1]);
  });

  it('should order like a sort through random pushes, pops and rank raises, and be reusable once empty', () => {
    const rand = seededRandom(11);
    const h = new RankHeap<Ranked>();
    for (let round = 0; round < 50; round++) {
      const nodes = Array.from({ length: 1 + Math.floor(rand() * 40) }, (_, i) => node(round * 100 + i, Math.floor(rand() * 8)));
      const queued: Ranked[] = [];
      const popped: number[] = [];
      for (const n of nodes) {
        h.push(n);
        queued.push(n);
        if (rand() < 0.3) {
          const p = h.pop()!;
          // What a correct heap pops: the lowest (rank, uid) among what is queued.
          const want = [...queued].sort((x, y) => x.rank - y.rank || x.uid - y.uid)[0]!;
          expect(p).toBe(want);
          queued.splice(queued.indexOf(p), 1);
          popped.push(p.uid);
        }
        if (rand() < 0.1 && queued.length > 0) queued[Math.floor(rand() * queued.length)]!.rank += 3;
      }
      const rest = drain(h);
      expect(rest).toEqual([...queued].sort((x, y) => x.rank - y.rank || x.uid - y.uid).map((n) => n.uid));
      expect(h.size).toBe(0);
    }
  });
});
