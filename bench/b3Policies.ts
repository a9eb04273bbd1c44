// B3: krt issue #60366. 500 policies each selecting the 10k pods of one namespace (namespace index + filterLabel); a burst of 10k pod events.
//
// Against the strong hand-written controller (policy and pod label indexes, skips queued policies, typed
// equality); the earlier one is an extra row. Every contender's resolved policies are compared with the
// baseline's after set-up and after every run, in the burst and per event.
import {
  batch,
  filterLabel,
  newCollection,
  newNamespaceIndex,
  newStaticCollection,
  type Collection,
  type StaticCollection,
} from '../src/index.js';
import { compare, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { IpAllocator, withNewIp, type Pod } from './fixtures.js';
import { canonicalSet } from './canonical.js';
import { makePods, makePolicies, POLICIES, PODS, resolve, type Policy, type ResolvedPolicy } from './b3Data.js';
import { StrongHandPolicies, WeakHandPolicies, type HandPolicies } from './b3HandPolicies.js';

/**
 * `--quick` runs on a quarter of the pods: at 10k, B3 took 13 s of the quick run's 56–59 s on a slow moment
 * of this host, against a limit of 60.
 */
export const QUICK_PODS = 2_500;

/** A built contender: its events so far, pod updates in one unit or one at a time, its outputs. */
export interface Live {
  events(): number;
  burst(next: readonly Pod[]): void;
  each(next: readonly Pod[]): void;
  outputs(): Iterable<ResolvedPolicy>;
  stop(): void;
}

export interface Contender {
  name: string;
  build(pods: Pod[], policies: Policy[]): Live;
}

function hand(name: string, make: (pods: Pod[], policies: Policy[]) => HandPolicies): Contender {
  return {
    name,
    build: (pods, policies) => {
      const c = make(pods, policies);
      return {
        events: () => c.events,
        burst: (next) => {
          for (const p of next) c.podEvent(p);
          c.drain();
        },
        each: (next) => {
          for (const p of next) {
            c.podEvent(p);
            c.drain();
          }
        },
        outputs: () => c.resolved.values(),
        stop: () => {},
      };
    },
  };
}

export const b3StrongHand = hand('hand-written', (pods, pols) => new StrongHandPolicies(pods, pols));
const weakHand = hand('hand-written, weak (tests every policy, deep-equal)', (pods, pols) => new WeakHandPolicies(pods, pols));

export const b3Rxkrt: Contender = {
  name: 'rxkrt',
  build: (pods, policies) => {
    const abort = new AbortController();
    const podC: StaticCollection<Pod> = newStaticCollection<Pod>(pods, { name: 'Pods', stop: abort.signal });
    const polC = newStaticCollection<Policy>(policies, { name: 'Policies', stop: abort.signal });
    const podsByNs = newNamespaceIndex(podC);
    const resolved: Collection<ResolvedPolicy> = newCollection<Policy, ResolvedPolicy>(
      polC,
      (ctx, p) => resolve(p, podsByNs.fetch(ctx, p.metadata.namespace, filterLabel(p.spec.selector)), () => true),
      { name: 'ResolvedPolicies', stop: abort.signal },
    );
    let events = 0;
    resolved.registerBatch((b) => {
      events += b.length;
    });
    return {
      events: () => events,
      burst: (next) =>
        batch(() => {
          for (const p of next) podC.updateObject(p);
        }),
      each: (next) => {
        for (const p of next) podC.updateObject(p);
      },
      outputs: () => resolved.list(),
      stop: () => abort.abort(),
    };
  },
};

interface Ctx {
  live: Live;
  ips: IpAllocator;
  pods: Pod[];
  next: Pod[];
  before: number;
  cursor: number;
}

/**
 * `events` pod updates per run (the pods from `cursor` on), applied in one unit (`each` false) or one at a
 * time; every update changes every policy's addresses.
 */
export function b3Variant(c: Contender, label: string, count: number, events: number, each: boolean, baseline = false): Variant<Ctx> {
  const name = c.name + label;
  const expected = each ? events * POLICIES : POLICIES;
  return {
    name,
    baseline,
    ops: events,
    setup: () => {
      const ips = new IpAllocator();
      const pods = makePods(ips, count);
      const live = c.build(pods, makePolicies());
      if (live.events() !== POLICIES) throw new Error(`${name}: initial sync produced ${live.events()} events`);
      return { live, ips, pods, next: [], before: 0, cursor: 0 };
    },
    prepare: (x) => {
      x.next = [];
      for (let k = 0; k < events; k++) {
        const at = (x.cursor + k) % count;
        x.next.push((x.pods[at] = withNewIp(x.pods[at]!, x.ips)));
      }
      x.cursor = (x.cursor + events) % count;
      x.before = x.live.events();
    },
    run: each ? (x) => x.live.each(x.next) : (x) => x.live.burst(x.next),
    verify: (x) => {
      const got = x.live.events() - x.before;
      if (got !== expected) throw new Error(`${name}: ${got} policy events for ${events} pod updates, expected ${expected}`);
    },
    outputs: (x) => canonicalSet(x.live.outputs()),
    teardown: (x) => x.live.stop(),
  };
}

export const b3: Scenario = {
  id: 'B3',
  title:
    'krt issue #60366: 500 policies × 10k pods of one namespace (namespace index + filterLabel); burst of 10k pod events (quick: 2.5k pods)',
  async run(opts: BenchOptions): Promise<Row[]> {
    const count = opts.quick ? QUICK_PODS : PODS;
    // More than one warm-up and seven runs, in the full run: the target judges the median.
    const run = opts.quick ? { warmup: opts.warmup, runs: opts.runs } : { warmup: 2 * opts.warmup, runs: 2 * opts.runs };
    const rows = await compare(
      `B3 burst of ${count === PODS ? '10k' : count} pod events`,
      [
        b3Variant(b3StrongHand, ' (1 drain)', count, count, false, true),
        b3Variant(b3Rxkrt, ' (1 batch)', count, count, false),
        b3Variant(weakHand, ' (1 drain)', count, count, false),
      ],
      run,
    );
    // One transaction (or drain) per pod event, as krt processes them: a few events, extrapolated to 10k.
    const events = opts.quick ? 2 : 5;
    const perEvent = await compare(
      `B3 per event, ${count === PODS ? '10k' : count} pods (${events} events a run)`,
      [
        b3Variant(b3StrongHand, ' (drain per event)', count, events, true, true),
        b3Variant(b3Rxkrt, ' (1 tx per event)', count, events, true),
      ],
      run,
    );
    for (const r of perEvent) r.extra = { extrapolated_10k_events_s: Math.round((r.per_op_us! * PODS) / 1e5) / 10 };
    return [...rows, ...perEvent];
  },
};
