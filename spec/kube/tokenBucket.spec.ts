import { describe, it, expect } from '@jest/globals';
import { TokenBucket } from '../../src/kube/tokenBucket.js';

describe('TokenBucket', () => {
  it('should hand out `burst` tokens at once, then one per 1/rate seconds', () => {
    const b = new TokenBucket(2, 3, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([0, 0, 0]);
    expect(b.take(0)).toBe(500);
    expect(b.take(250)).toBe(250);
    expect(b.take(500)).toBe(0);
  });

  it('should never hold more than `burst`, however long it was idle', () => {
    const b = new TokenBucket(10, 2, 0);
    expect([b.take(1e9), b.take(1e9), b.take(1e9)]).toEqual([0, 0, 100]);
  });

  it('should not drain when the clock goes backwards', () => {
    const b = new TokenBucket(1, 1, 1000);
    expect(b.take(0)).toBe(0);
    // Refilling restarts from the earlier reading: half a second later half a token is back.
    expect(b.take(500)).toBe(500);
  });
});
