// `npm run bench:cold`: what a cold cache costs B1's op, for rxkrt and the strong hand-written controller
// (strongHandWritten.ts).
//
// The harness runs every op after gcs (forced full gcs then, scavenges now), which leave the processor's
// caches holding the collector's work, not the graph's: in round 7, B1 read 1.05-1.13× the hand-written
// controller of the time (the weaker handWritten.ts) there, and about 0.95× when ops ran back to back. This
// puts the two regimes side by side, and a third between them, op by op in one process (the host's speed
// drifts by more than the differences, so only interleaved figures compare):
//
//   warm        ops back to back, nothing in between
//   flushed     a 64 MB buffer swept before each op: code and data evicted from L1 and L2
//   code-warm   the sweep, then the same op once on a twin graph: the code is hot again, this graph's data cold
//   gc          two scavenges before each op, as the harness does
//
//   node --expose-gc build/bench/cold.js [pods...] [--rounds N]     default 100 and 1000 pods (B1 has 1000)
//
// "flushed − warm" is what an op pays for a cold cache; "flushed − code-warm" the part of it that is code.
import { batch } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, podKey, withNewIp, type Pod } from './fixtures.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { buildRxkrtWorkloads, type RxkrtWorkloads } from './rxkrtWorkloads.js';
import { age, median, scavenge } from './harness.js';
import { defineCli, integer, rest } from './cli.js';

const REGIMES = ['warm', 'flushed', 'code-warm', 'gc'] as const;
type Regime = (typeof REGIMES)[number];

/** One contender's graph and the op B1 times on it: every pod's IP changes. */
interface Twin {
  pods: Pod[];
  op(next: readonly Pod[]): void;
}

interface Contender {
  name: string;
  /** The graph measured, and an identical one that only warms the code in the code-warm regime. */
  graphs: [Twin, Twin];
}

function handWritten(n: number, ips: IpAllocator): Twin {
  const pods = krtPods(n, ips);
  const c = StrongHandWrittenController.build(pods, krtServices(), () => {});
  return {
    pods,
    op: (next) => {
      for (const p of next) c.podEvent(podKey(p), p);
      c.drain();
    },
  };
}

function rxkrt(n: number, ips: IpAllocator): Twin {
  const pods = krtPods(n, ips);
  const g: RxkrtWorkloads = buildRxkrtWorkloads(pods, krtServices());
  return {
    pods,
    op: (next) =>
      batch(() => {
        for (const p of next) g.pods.updateObject(p);
      }),
  };
}

/** Larger than L2 on any current server part, so a sweep leaves neither code nor data of the graph there. */
const sweepBuffer = new Float64Array(8 << 20);
function sweepCaches(): void {
  for (let i = 0; i < sweepBuffer.length; i += 8) sweepBuffer[i]! += 1;
}

/** One timed op on `c`'s measured graph, after what `regime` does to the caches (untimed). */
function timedOp(c: Contender, regime: Regime, ips: IpAllocator): number {
  const [measured, twin] = c.graphs;
  const next = measured.pods.map((p) => withNewIp(p, ips));
  if (regime === 'flushed') sweepCaches();
  else if (regime === 'gc') scavenge();
  else if (regime === 'code-warm') {
    const twinNext = twin.pods.map((p) => withNewIp(p, ips));
    sweepCaches();
    twin.op(twinNext);
    twin.pods = twinNext;
  }
  const t0 = performance.now();
  measured.op(next);
  const t = performance.now() - t0;
  measured.pods = next;
  return t;
}

const CLI = defineCli({
  tool: 'bench:cold',
  usage: 'cold.js [pods...] [--rounds N]',
  options: { rounds: integer({ min: 1 }) },
  positionals: { pods: rest(integer({ min: 1 }), [100, 1000]) },
});

function main(): void {
  const args = CLI.parseOrExit();
  if ((globalThis as { gc?: unknown }).gc === undefined) throw new Error('run with node --expose-gc (npm run bench:cold does)');
  console.log(
    `bench:cold: B1's op (every pod's IP changes) on ${args.pods.join(' and ')} pods, node ${process.version}; regimes interleaved op by op`,
  );
  for (const n of args.pods) {
    const ips = new IpAllocator();
    const contenders: Contender[] = [
      { name: 'hand-written', graphs: [handWritten(n, ips), handWritten(n, ips)] },
      { name: 'rxkrt', graphs: [rxkrt(n, ips), rxkrt(n, ips)] },
    ];
    age();
    // A round is eight ops, most of its time going to sweeps and gcs: 30-60 s per data set here.
    const rounds = args.rounds ?? Math.max(100, Math.round(60_000 / n));
    const warmup = Math.ceil(rounds / 10);
    const samples = contenders.map(() => REGIMES.map((): number[] => []));
    for (let r = 0; r < rounds + warmup; r++) {
      for (let ri = 0; ri < REGIMES.length; ri++) {
        for (let ci = 0; ci < contenders.length; ci++) {
          const t = timedOp(contenders[ci]!, REGIMES[ri]!, ips);
          if (r >= warmup) samples[ci]![ri]!.push(t);
        }
      }
    }
    // Paired within each round: the host's speed drifts between rounds by more than these differences.
    const perRound = (f: (r: number) => number): number => median(samples[0]![0]!.map((_, r) => f(r)));
    const t = (ci: number, regime: Regime, r: number): number => samples[ci]![REGIMES.indexOf(regime)]![r]!;
    console.log(`\n${n} pods, ${rounds} rounds (median ms per op; the ratio is the median of each round's)`);
    console.log(`  ${'regime'.padEnd(11)} ${contenders.map((c) => c.name.padStart(13)).join('')}   rxkrt / hand-written`);
    for (const regime of REGIMES) {
      const row = contenders.map((_, ci) => median(samples[ci]![REGIMES.indexOf(regime)]!).toFixed(3).padStart(13)).join('');
      console.log(`  ${regime.padEnd(11)} ${row}   ${perRound((r) => t(1, regime, r) / t(0, regime, r)).toFixed(3)}`);
    }
    for (let ci = 0; ci < contenders.length; ci++) {
      const cold = perRound((r) => t(ci, 'flushed', r) - t(ci, 'warm', r));
      const code = perRound((r) => t(ci, 'flushed', r) - t(ci, 'code-warm', r));
      console.log(`  ${contenders[ci]!.name}: a cold cache costs ${cold.toFixed(3)} ms per op, of which ${code.toFixed(3)} ms is code`);
    }
  }
}

main();
