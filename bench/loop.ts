// `npm run bench:loop`: rxkrt's hot operations in a tight loop, with no forced gc between ops (unlike the
// harness), and the bytes each pod update allocates. Run with a 256 MB young generation (the script sets it),
// so that no scavenge runs inside a measured op and the heap growth across an op is what it allocated.
//
//   node build/bench/loop.js [rounds] [only]   `only`: run just the ops whose name contains it, e.g. under
//                                              `node --cpu-prof` to profile one op ("one batch")
import {
  batch,
  equals,
  fetch,
  filterGeneric,
  filterSelectsNonEmpty,
  newCollection,
  newStaticCollection,
  type Collection,
  type StaticCollection,
} from '../src/index.js';
import {
  IpAllocator,
  deepEqual,
  krtPods,
  krtServices,
  podKey,
  selects,
  withNewIp,
  withNewPhase,
  type Pod,
  type Service,
} from './fixtures.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { buildRxkrtWorkloads } from './rxkrtWorkloads.js';
import { QUICK, makePods, makeServices, toggled } from './b2Shape.js';
import { median } from './harness.js';
import { SelectorLookup } from '../src/engine/indexes/selectorLookup.js';
import { CandidateList } from '../src/engine/indexes/candidateList.js';
import { selectsNonEmpty } from '../src/core/labels.js';
import { defineCli, integer, text } from './cli.js';

const { rounds: ROUNDS, only: ONLY } = defineCli({
  tool: 'bench:loop',
  usage: 'node build/bench/loop.js [rounds] [only]',
  positionals: { rounds: integer({ min: 1 }, 1000), only: text() },
}).parseOrExit();

/** Median ms per op over ROUNDS ops (after a tenth as warm-up), and median KB allocated per op / `per`. */
function measure(name: string, per: number, op: (round: number) => void, baseline?: number): number {
  if (ONLY !== undefined && !name.includes(ONLY)) return NaN;
  const times: number[] = [];
  const bytes: number[] = [];
  const warm = Math.ceil(ROUNDS / 10);
  for (let r = 0; r < ROUNDS + warm; r++) {
    const h0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    op(r);
    const t = performance.now() - t0;
    const h = process.memoryUsage().heapUsed - h0;
    if (r >= warm) {
      times.push(t);
      // A scavenge inside the op makes the delta meaningless (negative or tiny): keep clean samples only.
      if (h > 0) bytes.push(h);
    }
  }
  const ms = median(times);
  const ratio = baseline === undefined ? '(baseline)' : Number.isNaN(baseline) ? '' : `ratio ${(ms / baseline).toFixed(2)}`;
  console.log(
    `${name.padEnd(52)} ${ms.toFixed(2).padStart(8)} ms/op  ${ratio.padEnd(11)} ${(median(bytes) / per / 1024).toFixed(2).padStart(6)} KB allocated per pod`,
  );
  return ms;
}

// Every B1 op builds its 1000 updated pods inside the timed op (the same for every variant).
const ips = new IpAllocator();
let pods: Pod[] = krtPods(1000, ips);
const next = (): Pod[] => (pods = pods.map((p) => withNewIp(p, ips)));
const hand = StrongHandWrittenController.build(pods, krtServices(), () => {});
const b1Baseline = measure('B1 op, hand-written controller', 1000, () => {
  for (const p of next()) hand.podEvent(podKey(p), p);
  hand.drain();
});
const b1 = buildRxkrtWorkloads(pods, krtServices());
measure(
  'B1 op, rxkrt, 1000 pod updates in one batch',
  1000,
  () => {
    const n = next();
    batch(() => {
      for (const p of n) b1.pods.updateObject(p);
    });
  },
  b1Baseline,
);
measure(
  'B1 op, rxkrt, 1000 pod updates, one transaction each',
  1000,
  () => {
    for (const p of next()) b1.pods.updateObject(p);
  },
  b1Baseline,
);

// The same graphs, with updates that change no Workload (each pod's phase flips): every recompute finds its
// output equal to the last, which is what most updates in a controller amount to.
const sameNext = (): Pod[] => (pods = pods.map(withNewPhase));
const sameBaseline = measure('B1 op, hand-written, 1000 updates changing no Workload', 1000, () => {
  for (const p of sameNext()) hand.podEvent(podKey(p), p);
  hand.drain();
});
measure(
  'B1 op, rxkrt, 1000 updates changing no Workload, one batch',
  1000,
  () => {
    const n = sameNext();
    batch(() => {
      for (const p of n) b1.pods.updateObject(p);
    });
  },
  sameBaseline,
);

const fanoutPods = makePods(QUICK, new IpAllocator());
const handFanout = StrongHandWrittenController.build(fanoutPods, makeServices(QUICK), () => {});
const fanoutBaseline = measure(`fan-out to ${QUICK.fanout} pods, hand-written controller`, QUICK.fanout, (r) => {
  const s = toggled(QUICK, r % 2 === 0);
  handFanout.serviceEvent(`${s.metadata.namespace}/${s.metadata.name}`, s);
  handFanout.drain();
});
const b2 = buildRxkrtWorkloads(fanoutPods, makeServices(QUICK));
measure(
  `fan-out to ${QUICK.fanout} pods, rxkrt`,
  QUICK.fanout,
  (r) => b2.services.updateObject(toggled(QUICK, r % 2 === 0)),
  fanoutBaseline,
);

// A narrow selector change: ns-0/svc-0 moves between `app=app-0` and `app=app-1`, 25 pods each of the
// namespace's 1000. Every pod of the namespace read the service's namespace group, so each is tested against
// the service before and after; only the 50 selected by either recompute.
const narrowed = (r: number): Service => ({ metadata: { name: 'svc-0', namespace: 'ns-0' }, spec: { selector: { app: `app-${r % 2}` } } });
const narrowBaseline = measure(
  `narrow selector change in a namespace of ${QUICK.pods / QUICK.namespaces} pods, hand-written`,
  QUICK.pods / QUICK.namespaces,
  (r) => {
    handFanout.serviceEvent('ns-0/svc-0', narrowed(r));
    handFanout.drain();
  },
);
measure(
  `narrow selector change in a namespace of ${QUICK.pods / QUICK.namespaces} pods, rxkrt`,
  QUICK.pods / QUICK.namespaces,
  (r) => b2.services.updateObject(narrowed(r)),
  narrowBaseline,
);

// A fetch by selector over a whole collection, without an index: 250 services in 5 namespaces, one batch of
// 1000 pod updates. The baseline asks for the same services through `filterGeneric`, which a fetch can only
// answer by testing every service; `filterSelectsNonEmpty` is answered by the collection's selector lookup.
// With `derived`, the services are a derived collection (each Service as a new object), fetched the same way.
function selectorGraph(bySelector: boolean, derived = false): { pods: StaticCollection<Pod>; all: Pod[] } {
  const all = makePods(QUICK, new IpAllocator());
  const pods = newStaticCollection<Pod>(all);
  const given = newStaticCollection<Service>(makeServices(QUICK));
  const services: Collection<Service> = derived
    ? newCollection(given, (_ctx, s) => ({ metadata: s.metadata, spec: { selector: s.spec.selector } }))
    : given;
  newCollection(pods, (ctx, p) => {
    const sameNs = filterGeneric((s: Service) => s.metadata.namespace === p.metadata.namespace);
    const svcs = bySelector
      ? fetch(ctx, services, filterSelectsNonEmpty(p.metadata.labels), sameNs)
      : fetch(
          ctx,
          services,
          filterGeneric((s: Service) => s.metadata.namespace === p.metadata.namespace && selects(s.spec.selector, p.metadata.labels)),
        );
    return { metadata: p.metadata, ip: p.status.podIP ?? '', serviceNames: svcs.map((s) => s.metadata.name) };
  }).register(() => {});
  return { pods, all };
}
const selectorOp =
  (g: { pods: StaticCollection<Pod>; all: Pod[] }, ips: IpAllocator) =>
  (r: number): void => {
    const from = (r * 1000) % g.all.length;
    const next = g.all.slice(from, from + 1000).map((p) => withNewIp(p, ips));
    batch(() => {
      for (const p of next) g.pods.updateObject(p);
    });
    for (let i = 0; i < next.length; i++) g.all[from + i] = next[i]!;
  };
const scanIps = new IpAllocator();
const scanBaseline = measure('1000 pods fetching from 250 services by predicate (scan)', 1000, selectorOp(selectorGraph(false), scanIps));
measure(
  '1000 pods fetching from 250 services by selector (lookup)',
  1000,
  selectorOp(selectorGraph(true), new IpAllocator()),
  scanBaseline,
);
measure('... 250 derived services by predicate (scan)', 1000, selectorOp(selectorGraph(false, true), new IpAllocator()), scanBaseline);
measure('... 250 derived services by selector (lookup)', 1000, selectorOp(selectorGraph(true, true), new IpAllocator()), scanBaseline);

// Two of a B1 update's costs on their own, 1000 at a time: a shallow freeze of a fresh Workload (the API
// freezes every output) and `equals` of two Workloads that differ in their IP (every recompute compares its
// output with the last), each on top of allocating the 1000 Workloads, which the baseline does alone.
const workloadsWith = (ip: string): Array<{ metadata: { name: string; namespace: string }; ip: string; serviceNames: string[] }> =>
  Array.from({ length: 1000 }, (_, i) => ({ metadata: { name: `pod-${i}`, namespace: 'ns-0' }, ip, serviceNames: [`pod-${i % 25}`] }));
const previous = workloadsWith('10.0.0.1');
let kept: unknown;
const allocBaseline = measure('1000 Workloads allocated', 1000, () => {
  kept = workloadsWith('10.0.0.2');
});
measure(
  '... and each shallow-frozen (Object.freeze)',
  1000,
  () => {
    const next = workloadsWith('10.0.0.2');
    for (const w of next) Object.freeze(w);
    kept = next;
  },
  allocBaseline,
);
measure(
  '... and each compared with its predecessor (equals)',
  1000,
  () => {
    const next = workloadsWith('10.0.0.2');
    for (let i = 0; i < next.length; i++) if (equals(previous[i], next[i])) throw new Error('Workloads with different IPs compared equal');
    kept = next;
  },
  allocBaseline,
);
// An unchanged output: equal in every field, so the whole object is walked (most recomputes in a controller),
// against the bench's own deepEqual, which ignores prototypes and `equals` methods.
measure(
  '... and each compared with an equal predecessor (equals)',
  1000,
  () => {
    const next = workloadsWith('10.0.0.1');
    for (let i = 0; i < next.length; i++) if (!equals(previous[i], next[i])) throw new Error('equal Workloads compared different');
    kept = next;
  },
  allocBaseline,
);
measure(
  "... the same with the bench fixture's deepEqual",
  1000,
  () => {
    const next = workloadsWith('10.0.0.1');
    for (let i = 0; i < next.length; i++) if (!deepEqual(previous[i], next[i])) throw new Error('equal Workloads compared different');
    kept = next;
  },
  allocBaseline,
);
void kept;

// The selector lookup on its own: the candidates among the 51 services of a B2 namespace in its fan-out state
// (svc-0 selecting every pod) for each of 1000 pods' label maps, with B2's three labels and with three more,
// against testing every one of the 51 selectors (what a fetch without the lookup does).
const namespaceServices = makeServices({ ...QUICK, namespaces: 1 }).map((s) => (s.metadata.name === 'svc-0' ? toggled(QUICK, true) : s));
const lookup = new SelectorLookup<Service>();
for (const s of namespaceServices) lookup.set(`${s.metadata.namespace}/${s.metadata.name}`, s);
const found = new CandidateList<Service>();
const podsOf = (extra: boolean): Pod[] =>
  makePods({ ...QUICK, pods: 1000, namespaces: 1 }, new IpAllocator()).map((p, i) =>
    extra
      ? {
          ...p,
          metadata: { ...p.metadata, labels: { ...p.metadata.labels, 'pod-template-hash': `h${i % 7}`, version: 'v1', team: `t${i % 3}` } },
        }
      : p,
  );
for (const [label, lookupPods] of [
  ['3 labels', podsOf(false)],
  ['6 labels', podsOf(true)],
] as const) {
  let selected = 0;
  const scanBaseline = measure(`selector lookup, 1000 pods (${label}): scan of 51 selectors`, 1000, () => {
    for (const p of lookupPods) for (const s of namespaceServices) if (selectsNonEmpty(s.spec.selector, p.metadata.labels)) selected++;
  });
  const lookupMs = measure(
    `selector lookup, 1000 pods (${label}): candidates`,
    1000,
    () => {
      for (const p of lookupPods) {
        lookup.candidates(p.metadata.labels, false, found);
        selected += found.length;
        found.reset();
      }
    },
    scanBaseline,
  );
  // `only` may have left both rows out (measure returns NaN for a row it skips): then nothing ran to select.
  const ran = !Number.isNaN(scanBaseline) || !Number.isNaN(lookupMs);
  if (ran && selected === 0) throw new Error('the selector lookup benchmark selected nothing');
}
