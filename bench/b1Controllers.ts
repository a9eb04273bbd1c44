// B1: krt's BenchmarkControllers (1000 pods, 50 services, namespace index + FilterSelectsNonEmpty), one op = 1000 pod IP updates.
import { batch } from '../src/index.js';
import { compare, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { IpAllocator, krtPods, krtServices, podKey, withNewIp, withNewPhase, type Pod, type Service } from './fixtures.js';
import { HandWrittenController } from './handWritten.js';
import { buildRxkrtWorkloads, type RxkrtWorkloads } from './rxkrtWorkloads.js';
import { buildMobxWorkloads, type MobxWorkloads } from './mobxWorkloads.js';
import { NaiveController } from './naiveWorkloads.js';

const PODS = 1000;

/** State every update variant shares: the current pods, the next ones (built untimed), and an event count. */
interface UpdateCtx<G> {
  graph: G;
  ips: IpAllocator;
  current: Pod[];
  next: Pod[];
  eventsBefore: number;
  events(): number;
}

/**
 * One op: every pod updated. By default its IP changes (1000 Workload updates); with `unchanged`, its phase
 * flips, which no Workload reads, so every recompute finds its output equal to the last and nothing is emitted.
 */
function updateVariant<G>(
  name: string,
  build: (pods: Pod[]) => { graph: G; events: () => number },
  apply: (g: G, next: readonly Pod[]) => void,
  extra: Partial<Variant<UpdateCtx<G>>> = {},
  unchanged = false,
): Variant<UpdateCtx<G>> {
  const expected = unchanged ? 0 : PODS;
  return {
    name,
    ops: PODS,
    setup: () => {
      const ips = new IpAllocator();
      const pods = krtPods(PODS, ips);
      const { graph, events } = build(pods);
      if (events() !== PODS) throw new Error(`${name}: initial sync produced ${events()} events, expected ${PODS}`);
      return { graph, ips, current: pods, next: [], eventsBefore: 0, events };
    },
    prepare: (c) => {
      c.next = c.current.map(unchanged ? withNewPhase : (p) => withNewIp(p, c.ips));
      c.eventsBefore = c.events();
    },
    run: (c) => apply(c.graph, c.next),
    verify: (c) => {
      const got = c.events() - c.eventsBefore;
      if (got !== expected) throw new Error(`${name}: ${got} workload events for ${PODS} pod updates, expected ${expected}`);
      c.current = c.next;
    },
    ...extra,
  };
}

/** The hand-written controller on B1's data, counting its events. */
function buildHandWritten(pods: Pod[]): { graph: HandWrittenController; events: () => number } {
  let n = 0;
  const graph = HandWrittenController.build(pods, krtServices(), () => n++);
  return { graph, events: () => n };
}

/** The hand-written controller's op: the informer's events, then one drain of the queue. */
function handWrittenBurst(g: HandWrittenController, next: readonly Pod[]): void {
  for (const p of next) g.podEvent(podKey(p), p);
  g.drain();
}

const handWritten = updateVariant<HandWrittenController>('hand-written', buildHandWritten, handWrittenBurst, { baseline: true });

/**
 * The hand-written controller reconciling after every update, as rxkrt's 1000 transactions do: the
 * like-for-like comparison for that row (the baseline drains its queue once for the 1000 updates).
 */
const handWrittenPerEvent = updateVariant<HandWrittenController>('hand-written (drain after each update)', buildHandWritten, (g, next) => {
  for (const p of next) {
    g.podEvent(podKey(p), p);
    g.drain();
  }
});

function buildRxkrt(pods: Pod[]): { graph: RxkrtWorkloads; events: () => number } {
  const graph = buildRxkrtWorkloads(pods, krtServices());
  return { graph, events: () => graph.events };
}

function rxkrtOneBatch(g: RxkrtWorkloads, next: readonly Pod[]): void {
  batch(() => {
    for (const p of next) g.pods.updateObject(p);
  });
}

const rxkrtBatch = updateVariant<RxkrtWorkloads>('rxkrt (1 batch)', buildRxkrt, rxkrtOneBatch, { teardown: (c) => c.graph.stop() });

/** The same two on updates that change no Workload (the phase flips): what most updates in a controller are. */
const handWrittenUnchanged = updateVariant<HandWrittenController>(
  'hand-written',
  buildHandWritten,
  handWrittenBurst,
  { baseline: true },
  true,
);
const rxkrtBatchUnchanged = updateVariant<RxkrtWorkloads>(
  'rxkrt (1 batch)',
  buildRxkrt,
  rxkrtOneBatch,
  { teardown: (c) => c.graph.stop() },
  true,
);

const rxkrtSeparate = updateVariant<RxkrtWorkloads>(
  'rxkrt (1000 transactions)',
  buildRxkrt,
  (g, next) => {
    for (const p of next) g.pods.updateObject(p);
  },
  { teardown: (c) => c.graph.stop() },
);

const mobx = updateVariant<MobxWorkloads>(
  'MobX (runInAction)',
  (pods) => {
    const graph = buildMobxWorkloads(pods, krtServices());
    return { graph, events: () => graph.events };
  },
  (g, next) => g.updatePods(next),
  { teardown: (c) => c.graph.stop() },
);

/**
 * Initial sync of the same data set: build everything and receive the 1000 initial adds. Each contender keeps
 * a small graph of its own alive meanwhile (`resident`), as a process running a controller does: when every
 * instance of a class is garbage, V8 collects the class's hidden classes and throws away the optimized code
 * that used them, and each build after a gc would then run unoptimized (rxkrt's B1 build: 10-25 ms instead of
 * 2-3 ms, with 150-240 deoptimizations per 30 builds marked "weak objects").
 */
function syncVariant(
  name: string,
  build: (pods: Pod[]) => number,
  resident: () => () => void,
  baseline = false,
): Variant<{ pods: Pod[]; stop: () => void }> {
  return {
    name,
    baseline,
    ops: PODS,
    setup: () => ({ pods: [], stop: resident() }),
    prepare: (c) => {
      c.pods = krtPods(PODS, new IpAllocator());
    },
    run: (c) => {
      const n = build(c.pods);
      if (n !== PODS) throw new Error(`${name}: ${n} initial events`);
    },
    teardown: (c) => c.stop(),
  };
}

/** The resident graphs of the initial-sync variants: 10 pods each, updated never. */
const RESIDENT_PODS = 10;

/** `syncVariant` for a contender built as a stoppable graph that counts its events (rxkrt, MobX). */
function graphSyncVariant(
  name: string,
  build: (pods: Pod[], services: Service[]) => { readonly events: number; stop(): void },
): Variant<{ pods: Pod[]; stop: () => void }> {
  return syncVariant(
    name,
    (pods) => {
      const g = build(pods, krtServices());
      g.stop();
      return g.events;
    },
    () => {
      const resident = build(krtPods(RESIDENT_PODS, new IpAllocator()), krtServices());
      return () => resident.stop();
    },
  );
}

/** Per-event cost at 10k pods: one pod update per transaction, rxkrt vs rebuilding everything. */
function perEvent10k(quick: boolean): Variant[] {
  const pods10k = 10_000;
  const naiveEvents = quick ? 5 : 20;
  const rxEvents = 1000;
  return [
    {
      name: 'naive rebuild @10k pods',
      baseline: true,
      ops: naiveEvents,
      setup: () => {
        const ips = new IpAllocator();
        const pods = krtPods(pods10k, ips);
        return { ips, pods, c: new NaiveController(pods, krtServices()), i: 0 };
      },
      run: (x: { ips: IpAllocator; pods: Pod[]; c: NaiveController; i: number }) => {
        for (let k = 0; k < naiveEvents; k++) x.c.podEvent(withNewIp(x.pods[x.i++ % pods10k]!, x.ips));
      },
    },
    {
      name: 'rxkrt @10k pods (1 tx per event)',
      ops: rxEvents,
      setup: () => {
        const ips = new IpAllocator();
        const pods = krtPods(pods10k, ips);
        return { ips, pods, g: buildRxkrtWorkloads(pods, krtServices()), i: 0 };
      },
      run: (x: { ips: IpAllocator; pods: Pod[]; g: RxkrtWorkloads; i: number }) => {
        for (let k = 0; k < rxEvents; k++) x.g.pods.updateObject(withNewIp(x.pods[x.i++ % pods10k]!, x.ips));
      },
      teardown: (x: { g: RxkrtWorkloads }) => x.g.stop(),
    },
  ];
}

export const b1: Scenario = {
  id: 'B1',
  title: "krt BenchmarkControllers: 1000 pods, 50 services; op = update every pod's IP, receive 1000 workload updates",
  async run(opts: BenchOptions): Promise<Row[]> {
    // An op takes milliseconds: more warm-up (JIT) and more runs than the heavier scenarios.
    const run = opts.quick ? { warmup: 3 * opts.warmup, runs: 2 * opts.runs } : { warmup: 5 * opts.warmup, runs: 3 * opts.runs };
    const rows: Row[] = [];
    rows.push(...(await compare('B1', [handWritten, rxkrtBatch, rxkrtSeparate, handWrittenPerEvent, mobx], run)));
    rows.push(...(await compare('B1, updates changing no Workload', [handWrittenUnchanged, rxkrtBatchUnchanged], run)));
    rows.push(
      ...(await compare(
        'B1 initial sync',
        [
          syncVariant(
            'hand-written',
            (pods) => {
              let n = 0;
              HandWrittenController.build(pods, krtServices(), () => n++);
              return n;
            },
            () => {
              const kept = HandWrittenController.build(krtPods(RESIDENT_PODS, new IpAllocator()), krtServices(), () => {});
              return () => void kept;
            },
            true,
          ),
          graphSyncVariant('rxkrt', buildRxkrtWorkloads),
          graphSyncVariant('MobX', buildMobxWorkloads),
        ],
        run,
      )),
    );
    const perEvent = await compare('B1 per event @10k', perEvent10k(opts.quick), { warmup: opts.warmup, runs: opts.runs });
    for (const r of perEvent) if (!r.baseline) r.extra = { times_faster_than_naive: Math.round(1 / r.ratio_vs_baseline) };
    rows.push(...perEvent);
    return rows;
  },
};
