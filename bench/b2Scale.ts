// B2: scale. 100k pods, 5k services, 100 namespaces: initial sync, bursts of pod updates, a selector fan-out, retained heap.
import { batch } from '../src/index.js';
import { compare, gc, heapUsed, median, round, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { IpAllocator, podKey, withNewIp, type Pod, type Service } from './fixtures.js';
import { FULL, QUICK, makeInformerPods, makePods, makeServices, toggled, type Shape } from './b2Shape.js';
import { HandWrittenController } from './handWritten.js';
import { buildRxkrtWorkloads, type RxkrtWorkloads } from './rxkrtWorkloads.js';

/** The resident graph's data set: one namespace of 10 pods and its 50 services. */
const RESIDENT: Shape = { pods: 10, namespaces: 1, servicesPerNs: 50, burst: 0, fanout: 0 };

// ---- initial sync and retained heap ----------------------------------------------------------------

interface SyncCtx {
  /** A small graph of the same kind, alive for the whole scenario (see B1's initial sync: a process running a controller keeps V8's optimized code for it). */
  resident: unknown;
  raw: { pods: Pod[]; services: Service[] } | undefined;
  graph: unknown;
  h0: number;
  rawBytes: number[];
  totalBytes: number[];
}

function syncVariant(
  name: string,
  s: Shape,
  pods: (s: Shape, ips: IpAllocator) => Pod[],
  build: (pods: Pod[], services: Service[]) => { graph: unknown; events: number },
  baseline = false,
): Variant<SyncCtx> {
  return {
    name,
    baseline,
    ops: s.pods,
    setup: () => ({
      resident: build(pods(RESIDENT, new IpAllocator()), makeServices(RESIDENT)).graph,
      raw: undefined,
      graph: undefined,
      h0: 0,
      rawBytes: [],
      totalBytes: [],
    }),
    prepare: (c) => {
      c.graph = undefined;
      c.raw = undefined;
      gc();
      c.h0 = heapUsed();
      c.raw = { pods: pods(s, new IpAllocator()), services: makeServices(s) };
      gc();
      c.rawBytes.push(heapUsed() - c.h0);
    },
    run: (c) => {
      const { graph, events } = build(c.raw!.pods, c.raw!.services);
      if (events !== s.pods) throw new Error(`${name}: ${events} initial events for ${s.pods} pods`);
      c.graph = graph;
    },
    verify: (c) => {
      gc();
      c.totalBytes.push(heapUsed() - c.h0);
    },
    extra: (c) => {
      const raw = median(c.rawBytes);
      const total = median(c.totalBytes);
      return {
        raw_bytes_per_pod: Math.round(raw / s.pods),
        retained_bytes_per_pod: Math.round(total / s.pods),
        // What the controller adds per pod, whatever the size of the pods themselves.
        overhead_bytes_per_pod: Math.round((total - raw) / s.pods),
        heap_ratio_vs_raw: round(total / raw, 3),
      };
    },
    teardown: (c) => {
      for (const g of [c.graph, c.resident]) (g as { stop?: () => void } | undefined)?.stop?.();
      c.graph = undefined;
      c.resident = undefined;
      c.raw = undefined;
    },
  };
}

// ---- steady state: bursts and fan-out ---------------------------------------------------------------

interface Live<G> {
  g: G;
  ips: IpAllocator;
  pods: Pod[];
  next: Pod[];
  cursor: number;
  broad: boolean;
  before: number;
  events(): number;
}

interface Driver<G> {
  build(pods: Pod[], services: Service[]): G;
  events(g: G): number;
  updatePods(g: G, pods: readonly Pod[]): void;
  updateService(g: G, svc: Service): void;
  stop?(g: G): void;
}

const rxkrtDriver: Driver<RxkrtWorkloads> = {
  build: (pods, services) => buildRxkrtWorkloads(pods, services),
  events: (g) => g.events,
  updatePods: (g, pods) =>
    batch(() => {
      for (const p of pods) g.pods.updateObject(p);
    }),
  updateService: (g, svc) => g.services.updateObject(svc),
  stop: (g) => g.stop(),
};

const handDriver: Driver<{ c: HandWrittenController; n: number }> = {
  build: (pods, services) => {
    const h = { c: undefined as unknown as HandWrittenController, n: 0 };
    h.c = HandWrittenController.build(pods, services, () => h.n++);
    return h;
  },
  events: (g) => g.n,
  updatePods: (g, pods) => {
    for (const p of pods) g.c.podEvent(podKey(p), p);
    g.c.drain();
  },
  updateService: (g, svc) => {
    g.c.serviceEvent(`${svc.metadata.namespace}/${svc.metadata.name}`, svc);
    g.c.drain();
  },
};

function liveSetup<G>(s: Shape, d: Driver<G>): Live<G> {
  const ips = new IpAllocator();
  const pods = makePods(s, ips);
  const g = d.build(pods, makeServices(s));
  return { g, ips, pods, next: [], cursor: 0, broad: false, before: 0, events: () => d.events(g) };
}

function burstVariant<G>(name: string, s: Shape, d: Driver<G>, baseline = false): Variant<Live<G>> {
  return {
    name,
    baseline,
    ops: s.burst,
    setup: () => liveSetup(s, d),
    prepare: (c) => {
      c.next = [];
      for (let k = 0; k < s.burst; k++) c.next.push(withNewIp(c.pods[(c.cursor + k) % s.pods]!, c.ips));
      c.before = c.events();
    },
    run: (c) => d.updatePods(c.g, c.next),
    verify: (c) => {
      const got = c.events() - c.before;
      if (got !== s.burst) throw new Error(`${name}: ${got} events for a burst of ${s.burst}`);
      for (let k = 0; k < s.burst; k++) c.pods[(c.cursor + k) % s.pods] = c.next[k]!;
      c.cursor = (c.cursor + s.burst) % s.pods;
    },
    teardown: (c) => d.stop?.(c.g),
  };
}

function fanoutVariant<G>(name: string, s: Shape, d: Driver<G>, baseline = false): Variant<Live<G>> {
  let svc: Service | undefined;
  return {
    name,
    baseline,
    ops: 1,
    setup: () => liveSetup(s, d),
    prepare: (c) => {
      c.broad = !c.broad;
      svc = toggled(s, c.broad);
      c.before = c.events();
    },
    run: (c) => d.updateService(c.g, svc!),
    verify: (c) => {
      // Pods of ns-0 with app=app-0 keep svc-0 either way; the rest gain or lose it.
      const podsInNs = s.pods / s.namespaces;
      const expected = podsInNs - podsInNs / 40;
      const got = c.events() - c.before;
      if (got !== expected) throw new Error(`${name}: fan-out gave ${got} events, expected ${expected}`);
    },
    extra: () => ({ pods_recomputed: s.pods / s.namespaces }),
    teardown: (c) => d.stop?.(c.g),
  };
}

export const b2: Scenario = {
  id: 'B2',
  title: 'scale: 100k pods, 5k services, 100 namespaces (quick: 5k / 250 / 5, bursts of 5k); each pod matches 1–2 services',
  async run(opts: BenchOptions): Promise<Row[]> {
    const s = opts.quick ? QUICK : FULL;
    const run = { warmup: opts.warmup, runs: opts.runs };
    const rows: Row[] = [];
    const buildRx = (pods: Pod[], services: Service[]) => {
      const g = buildRxkrtWorkloads(pods, services);
      return { graph: g, events: g.events };
    };
    const buildHand = (pods: Pod[], services: Service[]) => {
      let n = 0;
      const graph = HandWrittenController.build(pods, services, () => n++);
      return { graph, events: n };
    };
    rows.push(
      ...(await compare(
        `B2 initial sync (${s.pods} pods)`,
        [syncVariant('hand-written', s, makePods, buildHand, true), syncVariant('rxkrt', s, makePods, buildRx)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 initial sync, informer-shaped pods (${s.pods})`,
        [syncVariant('hand-written', s, makeInformerPods, buildHand, true), syncVariant('rxkrt', s, makeInformerPods, buildRx)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 burst of ${s.burst} pod updates`,
        [burstVariant('hand-written', s, handDriver, true), burstVariant('rxkrt (1 batch)', s, rxkrtDriver)],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        `B2 selector change fanning out to ${s.fanout} pods`,
        [fanoutVariant('hand-written', s, handDriver, true), fanoutVariant('rxkrt', s, rxkrtDriver)],
        // One fan-out is a millisecond: more runs for a stable median.
        { warmup: 3 * opts.warmup, runs: 3 * opts.runs },
      )),
    );
    return rows;
  },
};
