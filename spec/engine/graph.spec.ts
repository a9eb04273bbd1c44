// White-box: ranks keep every node above what it reads, and the cycle test that guards fetch.
import { describe, it, expect } from '@jest/globals';
import { raiseRank, wouldCycle } from '../../src/engine/graph.js';
import type { Dependent } from '../../src/engine/internalCollection.js';

/** A bare graph node: a rank and the nodes that read it. */
function node(name: string, rank = 0): Dependent & { readers: Dependent[] } {
  const readers: Dependent[] = [];
  return {
    uid: 0,
    name,
    rank,
    readers,
    receive: () => undefined,
    dependentsForRank: () => readers,
    upstreamSynced: () => undefined,
  };
}

describe('raiseRank', () => {
  it('should raise a node and, transitively, everything that reads it, to stay one above each input', () => {
    const a = node('a');
    const b = node('b');
    const c = node('c');
    a.readers.push(b);
    b.readers.push(c);
    raiseRank(a, 3);
    expect([a.rank, b.rank, c.rank]).toEqual([3, 4, 5]);
  });

  it('should never lower a rank, and stop where the readers are already high enough', () => {
    const a = node('a', 5);
    const b = node('b', 1);
    a.readers.push(b);
    raiseRank(a, 2);
    expect([a.rank, b.rank]).toEqual([5, 1]);
    const c = node('c', 0);
    const d = node('d', 10);
    c.readers.push(d);
    raiseRank(c, 4);
    expect([c.rank, d.rank]).toEqual([4, 10]);
  });
});

describe('wouldCycle', () => {
  it('should find a node reading itself and a reader that the source already reaches', () => {
    const a = node('a');
    const b = node('b');
    const c = node('c');
    a.readers.push(b);
    b.readers.push(c);
    expect(wouldCycle(a, a)).toBe(true);
    // c reading a is fine (a → b → c is the direction of data); a reading c would close a → b → c → a.
    expect(wouldCycle(c, a)).toBe(false);
    expect(wouldCycle(a, c)).toBe(true);
  });

  it('should terminate on a graph with shared readers (diamonds) and answer false when nothing connects', () => {
    const top = node('top');
    const left = node('left');
    const right = node('right');
    const bottom = node('bottom');
    top.readers.push(left, right);
    left.readers.push(bottom);
    right.readers.push(bottom);
    expect(wouldCycle(top, bottom)).toBe(true);
    expect(wouldCycle(bottom, top)).toBe(false);
    expect(wouldCycle(left, right)).toBe(false);
  });
});
