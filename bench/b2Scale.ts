// B2: scale. 100k pods, 5k services, 100 namespaces: initial sync, bursts of pod updates, a selector fan-out, retained heap.
import { compare, round, settledHeap, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { IpAllocator, withNewIp, type Pod, type Service } from './fixtures.js';
import { FULL, QUICK, makeInformerPods, makePods, makeServices, toggled, type Shape } from './b2Shape.js';
import { outputsOf, rxkrt, strongHand, weakHand, type Contender, type Live } from './workloadContenders.js';

/** The resident graph's data set: one namespace of 10 pods and its 50 services. */
const RESIDENT: Shape = { pods: 10, namespaces: 1, servicesPerNs: 50, burst: 0, fanout: 0 };

// ---- initial sync and retained heap ----------------------------------------------------------------

interface SyncCtx {
  /** A small graph of the same kind, alive for the whole scenario (see B1's initial sync: a process running a controller keeps V8's optimized code for it). */
  resident: Live | undefined;
  raw: { pods: Pod[]; services: Service[] } | undefined;
  graph: Live | undefined;
}

export function syncVariant(
  contender: Contender,
  s: Shape,
  pods: (s: Shape, ips: IpAllocator) => Pod[],
  baseline = false,
): Variant<SyncCtx> {
  const name = contender.name;
  const build = (p: Pod[], services: Service[]): { graph: Live; events: number } => {
    const graph = contender.build(p, services);
    return { graph, events: graph.events() };
  };
  return {
    name,
    baseline,
    ops: s.pods,
    setup: () => ({
      resident: build(pods(RESIDENT, new IpAllocator()), makeServices(RESIDENT)).graph,
      raw: undefined,
      graph: undefined,
    }),
    prepare: (c) => {
      dropGraph(c);
      c.raw = { pods: pods(s, new IpAllocator()), services: makeServices(s) };
    },
    run: (c) => {
      const { graph, events } = build(c.raw!.pods, c.raw!.services);
      if (events !== s.pods) throw new Error(`${name}: ${events} initial events for ${s.pods} pods`);
      c.graph = graph;
    },
    // The heap is read once the timed runs are over, around one more build: reading it takes forced full gcs,
    // which must not come before a timed run (see `scavenge` in harness.ts).
    extra: (c) => {
      dropGraph(c);
      const h0 = settledHeap();
      c.raw = { pods: pods(s, new IpAllocator()), services: makeServices(s) };
      const raw = settledHeap() - h0;
      c.graph = build(c.raw.pods, c.raw.services).graph;
      const total = settledHeap() - h0;
      return {
        raw_bytes_per_pod: Math.round(raw / s.pods),
        retained_bytes_per_pod: Math.round(total / s.pods),
        // What the controller adds per pod, whatever the size of the pods themselves.
        overhead_bytes_per_pod: Math.round((total - raw) / s.pods),
        heap_ratio_vs_raw: round(total / raw, 3),
      };
    },
    outputs: (c) => outputsOf((c.graph ?? c.resident)!),
    teardown: (c) => {
      c.graph?.stop();
      c.resident?.stop();
      c.graph = undefined;
      c.resident = undefined;
      c.raw = undefined;
    },
  };
}

/**
 * Stops and forgets the graph of the last run. A function of its own: a frame that read `c.graph` keeps the
 * graph alive in its registers while it runs, and the raw bytes measured after it came out negative.
 */
function dropGraph(c: SyncCtx): void {
  c.graph?.stop();
  c.graph = undefined;
  c.raw = undefined;
}

// ---- steady state: bursts and fan-out ---------------------------------------------------------------

interface LiveCtx {
  live: Live;
  ips: IpAllocator;
  pods: Pod[];
  next: Pod[];
  cursor: number;
  broad: boolean;
  before: number;
}

function liveSetup(s: Shape, c: Contender): LiveCtx {
  const ips = new IpAllocator();
  const pods = makePods(s, ips);
  return { live: c.build(pods, makeServices(s)), ips, pods, next: [], cursor: 0, broad: false, before: 0 };
}

export function burstVariant(c: Contender, label: string, s: Shape, baseline = false): Variant<LiveCtx> {
  const name = c.name + label;
  return {
    name,
    baseline,
    ops: s.burst,
    setup: () => liveSetup(s, c),
    prepare: (x) => {
      x.next = [];
      for (let k = 0; k < s.burst; k++) x.next.push(withNewIp(x.pods[(x.cursor + k) % s.pods]!, x.ips));
      x.before = x.live.events();
    },
    run: (x) => x.live.updateBatch(x.next),
    verify: (x) => {
      const got = x.live.events() - x.before;
      if (got !== s.burst) throw new Error(`${name}: ${got} events for a burst of ${s.burst}`);
      for (let k = 0; k < s.burst; k++) x.pods[(x.cursor + k) % s.pods] = x.next[k]!;
      x.cursor = (x.cursor + s.burst) % s.pods;
    },
    outputs: (x) => outputsOf(x.live),
    teardown: (x) => x.live.stop(),
  };
}

export function fanoutVariant(c: Contender, s: Shape, baseline = false): Variant<LiveCtx> {
  let svc: Service | undefined;
  return {
    name: c.name,
    baseline,
    ops: 1,
    setup: () => liveSetup(s, c),
    prepare: (x) => {
      x.broad = !x.broad;
      svc = toggled(s, x.broad);
      x.before = x.live.events();
    },
    run: (x) => x.live.updateService(svc!),
    verify: (x) => {
      // Pods of ns-0 with app=app-0 keep svc-0 either way; the rest gain or lose it.
      const podsInNs = s.pods / s.namespaces;
      const expected = podsInNs - podsInNs / 40;
      const got = x.live.events() - x.before;
      if (got !== expected) throw new Error(`${c.name}: fan-out gave ${got} events, expected ${expected}`);
    },
    outputs: (x) => outputsOf(x.live),
    extra: () => ({ pods_recomputed: s.pods / s.namespaces }),
    teardown: (x) => x.live.stop(),
  };
}

export const b2: Scenario = {
  id: 'B2',
  title: 'scale: 100k pods, 5k services, 100 namespaces (quick: 5k / 250 / 5, bursts of 5k); each pod matches 1–2 services',
  async run(opts: BenchOptions): Promise<Row[]> {
    const s = opts.quick ? QUICK : FULL;
    // More than one warm-up and seven runs: an op is long, but its median is what the targets judge.
    const run = opts.quick ? { warmup: opts.warmup, runs: opts.runs } : { warmup: 2 * opts.warmup, runs: 2 * opts.runs };
    const rows: Row[] = [];
    rows.push(
      ...(await compare(
        `B2 initial sync (${s.pods} pods)`,
        [syncVariant(strongHand, s, makePods, true), syncVariant(rxkrt, s, makePods), syncVariant(weakHand, s, makePods)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 initial sync, informer-shaped pods (${s.pods})`,
        [syncVariant(strongHand, s, makeInformerPods, true), syncVariant(rxkrt, s, makeInformerPods)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 burst of ${s.burst} pod updates`,
        [burstVariant(strongHand, ' (1 drain)', s, true), burstVariant(rxkrt, ' (1 batch)', s), burstVariant(weakHand, ' (1 drain)', s)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 selector change fanning out to ${s.fanout} pods`,
        [fanoutVariant(strongHand, s, true), fanoutVariant(rxkrt, s), fanoutVariant(weakHand, s)],
        // One fan-out is a millisecond: more runs for a stable median.
        { warmup: 3 * opts.warmup, runs: 3 * opts.runs },
      )),
    );
    for (const r of rows) {
      const hand = rows.find((h) => h.scenario === r.scenario && h.baseline);
      const own = r.extra?.['overhead_bytes_per_pod'];
      const base = hand?.extra?.['overhead_bytes_per_pod'];
      if (typeof own === 'number' && typeof base === 'number') r.extra = { ...r.extra, overhead_vs_hand: round(own / base, 3) };
    }
    return rows;
  },
};
