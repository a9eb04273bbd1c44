import { describe, it, expect } from '@jest/globals';
import { backoffDelay } from '../../src/kube/index.js';

describe('backoffDelay', () => {
  it('should wait nothing before the first attempt', () => {
    expect(backoffDelay(0)).toBe(0);
    expect(backoffDelay(-3)).toBe(0);
  });

  it('should double from 100 ms and stop at the 5 s cap by default', () => {
    const delays = Array.from({ length: 10 }, (_, i) => backoffDelay(i + 1));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
  });

  it('should honour a custom initial delay and cap', () => {
    const policy = { initialMs: 10, maxMs: 75 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, policy))).toEqual([10, 20, 40, 75, 75]);
    expect(backoffDelay(3, { initialMs: 1 })).toBe(4);
    expect(backoffDelay(9, { maxMs: 1000 })).toBe(1000);
  });

  it('should stay at the cap (never overflow) for huge attempt counts', () => {
    expect(backoffDelay(1_000)).toBe(5000);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER)).toBe(5000);
  });

  it('should never decrease as attempts grow', () => {
    let last = 0;
    for (let a = 1; a < 64; a++) {
      const d = backoffDelay(a, { initialMs: 7, maxMs: 3000 });
      expect(d).toBeGreaterThanOrEqual(last);
      expect(d).toBeLessThanOrEqual(3000);
      last = d;
    }
  });
});
