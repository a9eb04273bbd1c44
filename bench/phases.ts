// `npm run bench:phases`: where a burst of pod updates spends its time, phase by phase, for rxkrt and the
// strong hand-written controller (strongHandWritten.ts). B2's burst (10k updates of a 100k-pod graph, in one
// batch) and B1's op (1000 updates of 1000 pods) each run after two scavenges, as in the harness, the two
// contenders in turn.
//
//   node --expose-gc build/bench/phases.js [--quick] [--rounds N]     --quick: B2 at 5k pods (B2's quick shape)
//
// rxkrt's phases: the writes inside `batch` (key, freeze, the source's map), the source's flush (its events),
// the Workloads' flush (every recompute and the output batch), and the rest of the commit (delivery to the
// handler). The hand-written controller's: the informer events into its stores and queue, and the drain.
// The flushes are timed by wrapping the two collections' `flush` methods, which adds two clock reads each.
import { batch } from '../src/index.js';
import { internal } from '../src/engine/internalCollection.js';
import { IpAllocator, krtPods, krtServices, podKey, withNewIp, type Pod, type Service } from './fixtures.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { buildRxkrtWorkloads } from './rxkrtWorkloads.js';
import { FULL, QUICK, makePods, makeServices } from './b2Shape.js';
import { age, median, scavenge } from './harness.js';
import { defineCli, flag, integer } from './cli.js';

interface Data {
  name: string;
  pods: Pod[];
  services: Service[];
  burst: number;
}

/** Each op updates the next `burst` pods in turn (every pod of B1's 1000). */
class Cursor {
  private at = 0;
  constructor(
    readonly pods: Pod[],
    private readonly burst: number,
    private readonly ips: IpAllocator,
  ) {}

  next(): Pod[] {
    const out: Pod[] = [];
    for (let k = 0; k < this.burst; k++) out.push(withNewIp(this.pods[(this.at + k) % this.pods.length]!, this.ips));
    return out;
  }

  commit(next: readonly Pod[]): void {
    for (let k = 0; k < next.length; k++) this.pods[(this.at + k) % this.pods.length] = next[k]!;
    this.at = (this.at + next.length) % this.pods.length;
  }
}

type Phases = Record<string, number[]>;

function measure(d: Data, rounds: number): void {
  const ips = new IpAllocator();
  const hand = new Cursor([...d.pods], d.burst, ips);
  const handGraph = StrongHandWrittenController.build(hand.pods, d.services, () => {});
  const rx = new Cursor(
    d.pods.map((p) => withNewIp(p, ips)),
    d.burst,
    ips,
  );
  const rxGraph = buildRxkrtWorkloads(rx.pods, d.services);
  age();
  const flushTimes = new Map<string, number>();
  for (const [label, c] of [
    ['source flush', rxGraph.pods],
    ['Workloads flush', rxGraph.workloads],
  ] as const) {
    const node = internal(c as never) as unknown as { flush(): void };
    const flush = node.flush.bind(node);
    node.flush = () => {
      const t0 = performance.now();
      flush();
      flushTimes.set(label, performance.now() - t0);
    };
  }
  const handPhases: Phases = { events: [], drain: [] };
  const rxPhases: Phases = { writes: [], 'source flush': [], 'Workloads flush': [], 'rest of the commit': [], total: [] };
  const warmup = Math.ceil(rounds / 5);
  for (let r = 0; r < rounds + warmup; r++) {
    const keep = r >= warmup;
    let next = hand.next();
    scavenge();
    let t0 = performance.now();
    for (const p of next) handGraph.podEvent(podKey(p), p);
    let t1 = performance.now();
    handGraph.drain();
    const t2 = performance.now();
    if (keep) {
      handPhases['events']!.push(t1 - t0);
      handPhases['drain']!.push(t2 - t1);
    }
    hand.commit(next);

    next = rx.next();
    flushTimes.clear();
    scavenge();
    t0 = performance.now();
    batch(() => {
      for (const p of next) rxGraph.pods.updateObject(p);
      t1 = performance.now();
    });
    const t3 = performance.now();
    if (keep) {
      const source = flushTimes.get('source flush') ?? 0;
      const workloads = flushTimes.get('Workloads flush') ?? 0;
      rxPhases['writes']!.push(t1 - t0);
      rxPhases['source flush']!.push(source);
      rxPhases['Workloads flush']!.push(workloads);
      rxPhases['rest of the commit']!.push(t3 - t1 - source - workloads);
      rxPhases['total']!.push(t3 - t0);
    }
    rx.commit(next);
  }
  rxGraph.stop();
  const us = (xs: number[]): string => ((1000 * median(xs)) / d.burst).toFixed(3).padStart(8);
  console.log(`\n${d.name}: ${d.burst} updates per op, ${rounds} rounds (median µs per update)`);
  const handTotal = handPhases['events']!.map((e, i) => e + handPhases['drain']![i]!);
  console.log(
    `  hand-written  ${Object.entries(handPhases)
      .map(([k, v]) => `${k} ${us(v)}`)
      .join('   ')}   total ${us(handTotal)}`,
  );
  console.log(
    `  rxkrt         ${Object.entries(rxPhases)
      .map(([k, v]) => `${k} ${us(v)}`)
      .join('   ')}`,
  );
}

const CLI = defineCli({
  tool: 'bench:phases',
  usage: 'node --expose-gc build/bench/phases.js [--quick] [--rounds N]',
  options: { quick: flag(), rounds: integer({ min: 1 }) },
});

function main(): void {
  const { quick, rounds } = CLI.parseOrExit();
  if ((globalThis as { gc?: unknown }).gc === undefined) throw new Error('run with node --expose-gc (npm run bench:phases does)');
  const shape = quick ? QUICK : FULL;
  console.log(`bench:phases: node ${process.version}; every op after two scavenges`);
  const b1Ips = new IpAllocator();
  measure({ name: 'B1 (1000 pods, 50 services)', pods: krtPods(1000, b1Ips), services: krtServices(), burst: 1000 }, rounds ?? 100);
  measure(
    { name: `B2 burst (${shape.pods} pods)`, pods: makePods(shape, new IpAllocator()), services: makeServices(shape), burst: shape.burst },
    rounds ?? 20,
  );
}

main();
