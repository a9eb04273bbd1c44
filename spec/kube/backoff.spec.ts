import { describe, it, expect } from '@jest/globals';
import { backoffDelay, jitteredDelay } from '../../src/kube/index.js';

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

describe('jitteredDelay', () => {
  it('should spread a delay over [delay/2, delay] with the random source (equal jitter)', () => {
    expect([0, 0.25, 0.5, 1].map((r) => jitteredDelay(400, { random: () => r }))).toEqual([200, 250, 300, 400]);
  });

  it('should stay within [delay/2, delay] with Math.random and with a source that misbehaves', () => {
    for (let i = 0; i < 200; i++) {
      const d = jitteredDelay(1000);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(1000);
    }
    expect(jitteredDelay(1000, { random: () => 7 })).toBe(1000);
    expect(jitteredDelay(1000, { random: () => -1 })).toBe(500);
    expect(jitteredDelay(1000, { random: () => Number.NaN })).toBeGreaterThanOrEqual(500);
  });

  it('should leave the delay alone with jitter off, and never jitter a zero wait', () => {
    expect(jitteredDelay(1000, { jitter: false, random: () => 0 })).toBe(1000);
    expect(jitteredDelay(0, { random: () => 0 })).toBe(0);
  });
});
