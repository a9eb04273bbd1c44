// B3: krt issue #60366. 500 policies each selecting the 10k pods of one namespace (namespace index + filterLabel); a burst of 10k pod events.
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
import { deepEqual, IpAllocator, podKey, withNewIp, type Pod } from './fixtures.js';

const POLICIES = 500;
const PODS = 10_000;
/**
 * `--quick` runs the burst on a quarter of the pods: at 10k, B3 took 13 s of the quick run's 56–59 s on a
 * slow moment of this host, against a limit of 60.
 */
const QUICK_PODS = 2_500;
const NS = 'ns-0';

interface Policy {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: { readonly selector: Readonly<Record<string, string>> };
}

/** A policy's resolved form: the addresses of the pods it selects (what a proxy config would carry). */
interface ResolvedPolicy {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly addresses: readonly string[];
}

function makePods(ips: IpAllocator, count = PODS): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      metadata: { name: `pod-${i}`, namespace: NS, labels: { app: 'web', version: `v${i % 3}` } },
      spec: { serviceAccountName: 'fake-sa' },
      status: { phase: 'Running', podIP: ips.allocate() },
    });
  }
  return out;
}

function makePolicies(): Policy[] {
  const out: Policy[] = [];
  for (let i = 0; i < POLICIES; i++) out.push({ metadata: { name: `policy-${i}`, namespace: NS }, spec: { selector: { app: 'web' } } });
  return out;
}

function resolve(p: Policy, pods: Iterable<Pod>, labelsMatch: (pod: Pod) => boolean): ResolvedPolicy {
  const addresses: string[] = [];
  for (const pod of pods) if (labelsMatch(pod) && pod.status.podIP !== undefined) addresses.push(pod.status.podIP);
  return { metadata: p.metadata, addresses };
}

interface Ctx<G> {
  g: G;
  ips: IpAllocator;
  pods: Pod[];
  next: Pod[];
  before: number;
}

function burstVariant<G>(
  name: string,
  count: number,
  build: (pods: Pod[], policies: Policy[]) => G,
  events: (g: G) => number,
  apply: (g: G, next: readonly Pod[]) => void,
  baseline = false,
): Variant<Ctx<G>> {
  return {
    name,
    baseline,
    ops: count,
    setup: () => {
      const ips = new IpAllocator();
      const pods = makePods(ips, count);
      const g = build(pods, makePolicies());
      if (events(g) !== POLICIES) throw new Error(`${name}: initial sync produced ${events(g)} events`);
      return { g, ips, pods, next: [], before: 0 };
    },
    prepare: (c) => {
      c.next = c.pods.map((p) => withNewIp(p, c.ips));
      c.before = events(c.g);
    },
    run: (c) => apply(c.g, c.next),
    verify: (c) => {
      const got = events(c.g) - c.before;
      if (got !== POLICIES) throw new Error(`${name}: ${got} policy events after the burst, expected ${POLICIES}`);
      c.pods = c.next;
    },
  };
}

interface RxPolicies {
  pods: StaticCollection<Pod>;
  resolved: Collection<ResolvedPolicy>;
  events: number;
}

function buildRx(pods: Pod[], policies: Policy[]): RxPolicies {
  const podC = newStaticCollection<Pod>(pods, { name: 'Pods' });
  const polC = newStaticCollection<Policy>(policies, { name: 'Policies' });
  const podsByNs = newNamespaceIndex(podC);
  const resolved = newCollection<Policy, ResolvedPolicy>(
    polC,
    (ctx, p) => resolve(p, podsByNs.fetch(ctx, p.metadata.namespace, filterLabel(p.spec.selector)), () => true),
    { name: 'ResolvedPolicies' },
  );
  const g: RxPolicies = { pods: podC, resolved, events: 0 };
  resolved.registerBatch((b) => {
    g.events += b.length;
  });
  return g;
}

/** The hand-written equivalent: pod events enqueue the policies of the namespace whose selector matches; each is resolved once per burst. */
class HandPolicies {
  readonly podsByNs = new Map<string, Map<string, Pod>>();
  readonly policies = new Map<string, Policy>();
  readonly resolved = new Map<string, ResolvedPolicy>();
  private queue = new Set<string>();
  events = 0;

  constructor(pods: Pod[], policies: Policy[]) {
    for (const p of policies) this.policies.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
    for (const p of pods) this.podEvent(p);
    this.drain();
  }

  podEvent(pod: Pod): void {
    let g = this.podsByNs.get(pod.metadata.namespace);
    if (g === undefined) this.podsByNs.set(pod.metadata.namespace, (g = new Map()));
    const old = g.get(podKey(pod));
    g.set(podKey(pod), pod);
    for (const [k, pol] of this.policies) {
      if (pol.metadata.namespace !== pod.metadata.namespace) continue;
      if (matchLabels(pol.spec.selector, pod) || (old !== undefined && matchLabels(pol.spec.selector, old))) this.queue.add(k);
    }
  }

  drain(): void {
    const keys = this.queue;
    this.queue = new Set();
    for (const k of keys) {
      const pol = this.policies.get(k)!;
      const next = resolve(pol, this.podsByNs.get(pol.metadata.namespace)?.values() ?? [], (pod) => matchLabels(pol.spec.selector, pod));
      const prev = this.resolved.get(k);
      if (prev !== undefined && deepEqual(prev, next)) continue;
      this.resolved.set(k, next);
      this.events++;
    }
  }
}

function matchLabels(selector: Readonly<Record<string, string>>, pod: Pod): boolean {
  for (const k in selector) if (pod.metadata.labels[k] !== selector[k]) return false;
  return true;
}

/** rxkrt with one transaction per pod event, as krt processes them: a few events, then extrapolated to 10k. */
function perEventVariant(events: number): Variant<Ctx<RxPolicies> & { i: number }> {
  return {
    name: `rxkrt, 1 tx per event (${events} events, extrapolated to ${PODS})`,
    ops: events,
    setup: () => {
      const ips = new IpAllocator();
      const pods = makePods(ips);
      return { g: buildRx(pods, makePolicies()), ips, pods, next: [], before: 0, i: 0 };
    },
    prepare: (c) => {
      c.next = [];
      for (let k = 0; k < events; k++) c.next.push(withNewIp(c.pods[(c.i + k) % PODS]!, c.ips));
    },
    run: (c) => {
      for (const p of c.next) c.g.pods.updateObject(p);
    },
    verify: (c) => {
      for (let k = 0; k < events; k++) c.pods[(c.i + k) % PODS] = c.next[k]!;
      c.i += events;
    },
  };
}

export const b3: Scenario = {
  id: 'B3',
  title:
    'krt issue #60366: 500 policies × 10k pods of one namespace (namespace index + filterLabel); burst of 10k pod events (quick: 2.5k pods)',
  async run(opts: BenchOptions): Promise<Row[]> {
    const count = opts.quick ? QUICK_PODS : PODS;
    const rows = await compare(
      `B3 burst of ${count === PODS ? '10k' : count} pod events`,
      [
        burstVariant(
          'hand-written',
          count,
          (pods, pols) => new HandPolicies(pods, pols),
          (g) => g.events,
          (g, next) => {
            for (const p of next) g.podEvent(p);
            g.drain();
          },
          true,
        ),
        burstVariant(
          'rxkrt (1 batch)',
          count,
          buildRx,
          (g) => g.events,
          (g, next) =>
            batch(() => {
              for (const p of next) g.pods.updateObject(p);
            }),
        ),
      ],
      { warmup: opts.warmup, runs: opts.runs },
    );
    if (opts.quick) return rows;
    // Seconds per event: only in the full run.
    const perEvent = await compare('B3 per-event transactions (krt-like)', [perEventVariant(5)], { warmup: opts.warmup, runs: opts.runs });
    for (const r of perEvent) r.extra = { extrapolated_10k_events_s: Math.round((r.per_op_us! * PODS) / 1e6) };
    return [...rows, ...perEvent];
  },
};
