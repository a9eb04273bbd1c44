import { describe, it, expect } from '@jest/globals';
import { fitLine } from '../../bench/lineFit.js';

describe('fitLine (bench:probe build-sizes)', () => {
  it('should recover the intercept and slope of points on a line', () => {
    const f = fitLine(
      [1, 250, 500, 1000, 2000],
      [1, 250, 500, 1000, 2000].map((x) => 259 + 2.04 * x),
    );
    expect(f.fixed).toBeCloseTo(259, 6);
    expect(f.perUnit).toBeCloseTo(2.04, 9);
  });

  it('should give the least-squares line through scattered points', () => {
    // (0,1), (1,3), (2,2): slope 0.5, intercept 1.5.
    const f = fitLine([0, 1, 2], [1, 3, 2]);
    expect(f.perUnit).toBeCloseTo(0.5, 9);
    expect(f.fixed).toBeCloseTo(1.5, 9);
  });

  it('should refuse too few points, unequal lists and sizes all alike', () => {
    expect(() => fitLine([1], [2])).toThrow(/two or more points/);
    expect(() => fitLine([1, 2], [2])).toThrow(/one cost per size/);
    expect(() => fitLine([5, 5, 5], [1, 2, 3])).toThrow(/two different sizes/);
  });
});
