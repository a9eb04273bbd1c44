// Paired ratios of op times measured round by round in several processes, and how sure we are of them.
//
// Rounds within one process share its heap layout, which is decided once, when its graphs are set up; two
// processes of the same comparison have disagreed by more than either one's interval over rounds
// (docs/benchmarks-history.md, round 7). So the interval over rounds says how well one process was measured, and the
// interval over processes, which resamples whole processes before their rounds, what a process costs to
// trust: the one to read when they differ.
import { median } from './harness.js';

export interface PairedRatio {
  /** Median of every process's per-round ratios, pooled. */
  median: number;
  /** Bootstrap 95% interval, resampling rounds within each process. */
  roundsLo: number;
  roundsHi: number;
  /** Bootstrap 95% interval, resampling processes, then rounds within each. */
  processesLo: number;
  processesHi: number;
  /** Each process's median ratio, in the order the processes ran. */
  perProcess: number[];
}

const RESAMPLES = 1000;

/** `a[p][i] / b[p][i]`: process p's round i, this contender's time over the other's. */
export function pairedRatio(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): PairedRatio {
  const ratios = a.map((xs, p) => xs.map((x, i) => x / b[p]![i]!));
  const everyProcess = ratios.map((_, p) => p);
  const overRounds: number[] = [];
  const overProcesses: number[] = [];
  for (let k = 0; k < RESAMPLES; k++) {
    overRounds.push(median(resampledRounds(ratios, everyProcess)));
    overProcesses.push(
      median(
        resampledRounds(
          ratios,
          everyProcess.map(() => pick(everyProcess)),
        ),
      ),
    );
  }
  overRounds.sort((x, y) => x - y);
  overProcesses.sort((x, y) => x - y);
  const lo = Math.floor(RESAMPLES * 0.025);
  const hi = Math.ceil(RESAMPLES * 0.975) - 1;
  return {
    median: median(ratios.flat()),
    roundsLo: overRounds[lo]!,
    roundsHi: overRounds[hi]!,
    processesLo: overProcesses[lo]!,
    processesHi: overProcesses[hi]!,
    perProcess: ratios.map((r) => median(r)),
  };
}

/** The chosen processes' rounds, each process's resampled with replacement, pooled. */
function resampledRounds(ratios: readonly (readonly number[])[], processes: readonly number[]): number[] {
  const out: number[] = [];
  for (const p of processes) {
    const r = ratios[p]!;
    for (let i = 0; i < r.length; i++) out.push(pick(r));
  }
  return out;
}

function pick<T>(xs: readonly T[]): T {
  return xs[Math.floor(Math.random() * xs.length)]!;
}

/** `0.964 (95% interval 0.934–0.988 over rounds, 0.921–1.007 over processes; per process 0.954 0.974)`. */
export function describeRatio(r: PairedRatio): string {
  const f = (x: number): string => x.toFixed(3);
  return `${f(r.median)} (95% interval ${f(r.roundsLo)}–${f(r.roundsHi)} over rounds, ${f(r.processesLo)}–${f(r.processesHi)} over processes; per process ${r.perProcess.map(f).join(' ')})`;
}
