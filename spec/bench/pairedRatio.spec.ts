import { describe, it, expect } from '@jest/globals';
import { describeRatio, pairedRatio } from '../../bench/pairedRatio.js';

/** `n` rounds of a ratio near `level` (a fixed, small spread), as times over a baseline of 2 ms. */
function runOf(level: number, n = 60): { a: number[]; b: number[] } {
  const b = Array.from({ length: n }, () => 2);
  const a = Array.from({ length: n }, (_, i) => 2 * level * (1 + ((i % 5) - 2) / 200));
  return { a, b };
}

describe('pairedRatio (bench:ab)', () => {
  it('should give the pooled median and each process’s own median', () => {
    const p = [runOf(1.1), runOf(0.9)];
    const r = pairedRatio(
      p.map((x) => x.a),
      p.map((x) => x.b),
    );
    expect(r.perProcess.map((x) => Number(x.toFixed(3)))).toEqual([1.1, 0.9]);
    expect(r.median).toBeGreaterThan(0.89);
    expect(r.median).toBeLessThan(1.11);
  });

  it('should widen the interval over processes when processes disagree, and not the one over rounds', () => {
    const agree = [runOf(1.0), runOf(1.0), runOf(1.0), runOf(1.0)];
    const disagree = [runOf(1.15), runOf(0.85), runOf(1.15), runOf(0.85)];
    const a = pairedRatio(
      agree.map((x) => x.a),
      agree.map((x) => x.b),
    );
    const d = pairedRatio(
      disagree.map((x) => x.a),
      disagree.map((x) => x.b),
    );
    expect(a.processesHi - a.processesLo).toBeLessThan(0.02);
    expect(d.processesHi - d.processesLo).toBeGreaterThan(0.2);
    // Pooled rounds of processes at 0.85 and 1.15 have their median between the two, where few rounds lie:
    // over rounds the interval stays within the two levels.
    expect(d.roundsLo).toBeGreaterThanOrEqual(0.84);
    expect(d.roundsHi).toBeLessThanOrEqual(1.16);
    expect(a.roundsLo).toBeLessThanOrEqual(a.median);
    expect(a.roundsHi).toBeGreaterThanOrEqual(a.median);
  });

  it('should print the median, both intervals and the processes', () => {
    const p = [runOf(1.0), runOf(1.0)];
    const text = describeRatio(
      pairedRatio(
        p.map((x) => x.a),
        p.map((x) => x.b),
      ),
    );
    expect(text).toMatch(
      /^1\.000 \(95% interval \d\.\d{3}–\d\.\d{3} over rounds, \d\.\d{3}–\d\.\d{3} over processes; per process 1\.000 1\.000\)$/,
    );
  });
});
