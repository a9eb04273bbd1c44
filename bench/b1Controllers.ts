// B1: krt's BenchmarkControllers (1000 pods, 50 services, namespace index + FilterSelectsNonEmpty), one op = 1000 pod IP updates.
//
// The headline pairs are like with like: rxkrt's one batch against the hand-written controller draining its
// queue once for the 1000 updates, and rxkrt's one transaction per update against a drain per update. The
// baseline is the strong hand-written controller (selector index, typed equality); the earlier one (scan,
// deep-equal) is an extra row. Every contender's Workloads are compared with the baseline's after every run.
import { compare, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { IpAllocator, krtPods, krtServices, withNewIp, withNewPhase, type Pod } from './fixtures.js';
import { mobx, naive, outputsOf, rxkrt, strongHand, weakHand, type Contender, type Live } from './workloadContenders.js';

const PODS = 1000;

/** State every update variant shares: the current pods, the next ones (built untimed), and an event count. */
interface UpdateCtx {
  live: Live;
  ips: IpAllocator;
  current: Pod[];
  next: Pod[];
  eventsBefore: number;
}

/**
 * One op: every pod updated, as one unit (`each` false) or one at a time. By default its IP changes (1000
 * Workload updates); with `unchanged`, its phase flips, which no Workload reads, so nothing is emitted.
 */
export function updateVariant(
  c: Contender,
  each: boolean,
  opts: { label?: string; baseline?: boolean; unchanged?: boolean } = {},
): Variant<UpdateCtx> {
  const name = `${c.name}${opts.label ?? ''}`;
  const expected = opts.unchanged === true ? 0 : PODS;
  return {
    name,
    baseline: opts.baseline === true,
    ops: PODS,
    setup: () => {
      const ips = new IpAllocator();
      const pods = krtPods(PODS, ips);
      const live = c.build(pods, krtServices());
      if (live.events() !== PODS) throw new Error(`${name}: initial sync produced ${live.events()} events, expected ${PODS}`);
      return { live, ips, current: pods, next: [], eventsBefore: 0 };
    },
    prepare: (x) => {
      x.next = x.current.map(opts.unchanged === true ? withNewPhase : (p) => withNewIp(p, x.ips));
      x.eventsBefore = x.live.events();
    },
    run: each ? (x) => x.live.updateEach(x.next) : (x) => x.live.updateBatch(x.next),
    verify: (x) => {
      const got = x.live.events() - x.eventsBefore;
      if (got !== expected) throw new Error(`${name}: ${got} workload events for ${PODS} pod updates, expected ${expected}`);
      x.current = x.next;
    },
    outputs: (x) => outputsOf(x.live),
    teardown: (x) => x.live.stop(),
  };
}

/**
 * Initial sync of the same data set: build everything and receive the 1000 initial adds. Each contender keeps
 * a small graph of its own alive meanwhile (`resident`), as a process running a controller does: when every
 * instance of a class is garbage, V8 collects the class's hidden classes and throws away the optimized code
 * that used them, and each build after a gc would then run unoptimized.
 */
interface SyncCtx {
  pods: Pod[];
  resident: Live;
  built: Live | undefined;
}

/** The resident graphs of the initial-sync variants: 10 pods each, updated never. */
const RESIDENT_PODS = 10;

export function syncVariant(c: Contender, baseline = false): Variant<SyncCtx> {
  return {
    name: c.name,
    baseline,
    ops: PODS,
    setup: () => ({ pods: [], resident: c.build(krtPods(RESIDENT_PODS, new IpAllocator()), krtServices()), built: undefined }),
    prepare: (x) => {
      x.built?.stop();
      x.built = undefined;
      x.pods = krtPods(PODS, new IpAllocator());
    },
    run: (x) => {
      x.built = c.build(x.pods, krtServices());
    },
    verify: (x) => {
      if (x.built!.events() !== PODS) throw new Error(`${c.name}: ${x.built!.events()} initial events`);
    },
    outputs: (x) => outputsOf(x.built ?? x.resident),
    teardown: (x) => {
      x.built?.stop();
      x.resident.stop();
    },
  };
}

/**
 * Per-event cost at 10k pods: the same `events` pod updates per run for every contender, one transaction (or
 * drain, or rebuild) each, so that their outputs can be compared after every run.
 */
export function perEventVariant(c: Contender, pods: number, events: number, baseline = false): Variant<UpdateCtx & { i: number }> {
  return {
    name: `${c.name} @${pods / 1000}k pods`,
    baseline,
    ops: events,
    setup: () => {
      const ips = new IpAllocator();
      const current = krtPods(pods, ips);
      return { live: c.build(current, krtServices()), ips, current, next: [], eventsBefore: 0, i: 0 };
    },
    prepare: (x) => {
      x.next = [];
      for (let k = 0; k < events; k++) {
        const at = (x.i + k) % pods;
        x.next.push((x.current[at] = withNewIp(x.current[at]!, x.ips)));
      }
      x.i += events;
      x.eventsBefore = x.live.events();
    },
    run: (x) => x.live.updateEach(x.next),
    verify: (x) => {
      const got = x.live.events() - x.eventsBefore;
      if (got !== events) throw new Error(`${c.name}: ${got} events for ${events} updates`);
    },
    outputs: (x) => outputsOf(x.live),
    teardown: (x) => x.live.stop(),
  };
}

export const b1: Scenario = {
  id: 'B1',
  title: "krt BenchmarkControllers: 1000 pods, 50 services; op = update every pod's IP, receive 1000 workload updates",
  async run(opts: BenchOptions): Promise<Row[]> {
    // An op takes milliseconds: more warm-up (JIT) and more runs than the heavier scenarios.
    const run = opts.quick ? { warmup: 3 * opts.warmup, runs: 2 * opts.runs } : { warmup: 5 * opts.warmup, runs: 3 * opts.runs };
    const rows: Row[] = [];
    rows.push(
      ...(await compare(
        'B1 one batch',
        [
          updateVariant(strongHand, false, { label: ' (1 drain)', baseline: true }),
          updateVariant(rxkrt, false, { label: ' (1 batch)' }),
          updateVariant(mobx, false, { label: ' (runInAction)' }),
          updateVariant(weakHand, false, { label: ' (1 drain)' }),
        ],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        'B1 one transaction per update',
        [
          updateVariant(strongHand, true, { label: ' (drain per update)', baseline: true }),
          updateVariant(rxkrt, true, { label: ' (1000 transactions)' }),
          updateVariant(weakHand, true, { label: ' (drain per update)' }),
        ],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        'B1 one batch, updates changing no Workload',
        [
          updateVariant(strongHand, false, { label: ' (1 drain)', baseline: true, unchanged: true }),
          updateVariant(rxkrt, false, { label: ' (1 batch)', unchanged: true }),
        ],
        run,
      )),
    );
    rows.push(
      ...(await compare(
        'B1 initial sync',
        [syncVariant(strongHand, true), syncVariant(rxkrt), syncVariant(mobx), syncVariant(weakHand)],
        run,
      )),
    );
    const events = opts.quick ? 5 : 20;
    const perEvent = await compare(
      'B1 per event @10k',
      [perEventVariant(strongHand, 10_000, events, true), perEventVariant(rxkrt, 10_000, events), perEventVariant(naive, 10_000, events)],
      { warmup: opts.warmup, runs: opts.runs },
    );
    const rx = perEvent.find((r) => r.variant.startsWith('rxkrt'))!;
    for (const r of perEvent)
      if (r.variant.startsWith('naive')) r.extra = { times_slower_than_rxkrt: Math.round(r.median_ms / rx.median_ms) };
    rows.push(...perEvent);
    return rows;
  },
};
