import { describe, it, expect } from '@jest/globals';
import { HashRing, hash32 } from '../../src/kube/index.js';
import { measureRing } from '../../bench/ring.js';

const keys = Array.from({ length: 20_000 }, (_, i) => `default/object-${i}`);

describe('hash32', () => {
  it('should spread names that differ only in their last character over the whole word', () => {
    const hashes = Array.from({ length: 16 }, (_, i) => hash32(`replica-1#${i}`));
    expect(new Set(hashes).size).toBe(16);
    // Top nibbles cover most of the 16 buckets: the finalizer mixed the last character into the high bits.
    expect(new Set(hashes.map((h) => h >>> 28)).size).toBeGreaterThan(8);
    expect(hash32('a')).toBe(hash32('a'));
  });
});

describe('HashRing', () => {
  it('should give the same owner for any member order, and none on an empty ring', () => {
    const a = new HashRing(['x', 'y', 'z'], 64);
    const b = new HashRing(['z', 'x', 'y', 'x'], 64);
    expect(b.members).toEqual(['x', 'y', 'z']);
    for (const k of keys.slice(0, 500)) expect(b.ownerOf(k)).toBe(a.ownerOf(k));
    expect(new HashRing([], 64).ownerOf('k')).toBeUndefined();
    expect(() => new HashRing(['x'], 0)).toThrow('HashRing: virtualNodes must be a positive integer, got 0');
  });

  it('should move keys only to a joining member, and only from a leaving one', () => {
    const members = Array.from({ length: 10 }, (_, i) => `replica-${i}`);
    const before = new HashRing(members, 256);
    const joined = new HashRing([...members, 'replica-10'], 256);
    const left = new HashRing(members.slice(1), 256);
    for (const k of keys) {
      const owner = before.ownerOf(k);
      const afterJoin = joined.ownerOf(k);
      if (afterJoin !== owner) expect(afterJoin).toBe('replica-10');
      if (owner !== 'replica-0') expect(left.ownerOf(k)).toBe(owner);
    }
  });

  it.each([10, 50])('should keep %i members within 1.25 of the mean share with the default 256 points, moving about 1/N per join', (n) => {
    for (const scheme of ['ordinal', 'statefulSet', 'pod']) {
      const f = measureRing(n, 256, scheme, keys);
      expect(f.balance).toBeLessThanOrEqual(1.25);
      expect(f.movedOnJoin).toBeGreaterThan(0.6 / (n + 1));
      expect(f.movedOnJoin).toBeLessThan(1.4 / (n + 1));
      expect(f.movedOnLeave).toBeGreaterThan(0.6 / n);
      expect(f.movedOnLeave).toBeLessThan(1.4 / n);
    }
  });
});
