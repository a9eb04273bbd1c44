// Differential test for full label selectors and nested joins: random operations against a from-scratch recomputation.
//
// Services carry selectors with matchExpressions (or plain maps); pods are fetched by them (filterSelects,
// filterSelectsNonEmpty over a source, an index group and a derived collection, scanned below 8 objects and
// through the selector lookup from 8 on) and select them (filterLabelSelector). A container of member
// collections, some of them derived and ranked above the joins, feeds both nested joins; members join and
// leave the container, and change, in the same transactions. After every operation each collection's
// `list()` must equal the recomputation, a handler must have rebuilt it from its events, and no collection
// may emit twice in one transaction. `RXKRT_DIFF_SEEDS=N` runs seeds 1..N.
import { describe, it } from '@jest/globals';
import {
  batch,
  equals,
  fetch,
  filterLabelSelector,
  filterSelects,
  filterSelectsNonEmpty,
  labelSelectorOf,
  matchesLabelSelector,
  nestedJoinCollection,
  nestedJoinWithMergeCollection,
  newCollection,
  newIndex,
  newStaticCollection,
  type Collection,
  type Event,
  type LabelSelector,
  type LabelSelectorRequirement,
  type StaticCollection,
} from '../../src/index.js';
import { internal } from '../../src/engine/internalCollection.js';
import { canonicalList } from '../helpers/canonical.js';
import { Random } from './differentialModel.js';

type Labels = Record<string, string>;
interface Pod {
  metadata: { name: string; namespace: string; labels: Labels };
}
interface Svc {
  metadata: { name: string; namespace: string };
  spec: { selector: LabelSelector | Labels };
}
interface Claim {
  metadata: { name: string };
  from: string;
  v: number;
}

const NAMESPACES = ['n0', 'n1', 'n2'];
const POD_NAMES = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
const SVC_NAMES = ['s0', 's1', 's2', 's3', 's4'];
const CLAIM_NAMES = ['c0', 'c1', 'c2', 'c3', 'c4'];
const key = (o: { metadata: { name: string; namespace?: string } }): string =>
  o.metadata.namespace === undefined ? o.metadata.name : `${o.metadata.namespace}/${o.metadata.name}`;
const sorted = (xs: string[]): string[] => [...xs].sort();

function randomLabels(r: Random): Labels {
  const l: Labels = {};
  if (r.chance(0.7)) l['app'] = r.pick(['a', 'b', 'c']);
  if (r.chance(0.5)) l['tier'] = r.pick(['x', 'y']);
  if (r.chance(0.2)) l['legacy'] = 'true';
  return l;
}

function randomSelector(r: Random): LabelSelector | Labels {
  if (r.chance(0.25)) return r.chance(0.3) ? {} : { app: r.pick(['a', 'b', 'c']) };
  const candidates: LabelSelectorRequirement[] = [
    { key: 'tier', operator: 'In', values: r.chance(0.5) ? ['x'] : ['x', 'y'] },
    { key: 'app', operator: 'NotIn', values: [r.pick(['a', 'b'])] },
    { key: 'tier', operator: 'Exists' },
    { key: 'legacy', operator: 'DoesNotExist' },
  ];
  const matchExpressions = candidates.filter(() => r.chance(0.35));
  const matchLabels: Labels = r.chance(0.5) ? { app: r.pick(['a', 'b', 'c']) } : {};
  return r.chance(0.15) ? { matchLabels } : { matchLabels, matchExpressions };
}

const isEmptySelector = (s: LabelSelector): boolean =>
  Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;

interface Snapshot {
  pods: Pod[];
  svcs: Svc[];
  members: Collection<Claim>[];
}

interface Checked {
  readonly name: string;
  readonly collection: Collection<unknown>;
  readonly expected: (s: Snapshot) => unknown[];
}

function buildGraph() {
  const pods = newStaticCollection<Pod>([], { name: 'pods' });
  const svcs = newStaticCollection<Svc>([], { name: 'svcs' });
  const checked: Checked[] = [];
  const add = <T>(name: string, collection: Collection<T>, expected: (s: Snapshot) => T[]): Collection<T> => {
    checked.push({ name, collection: collection as Collection<unknown>, expected });
    return collection;
  };

  // Pods reading the services whose selectors select them, three ways (source, index group, derived copy).
  const allSvcs = newIndex(svcs, 'all', () => ['all']);
  const svcCopies = newCollection(svcs, (_ctx, s): Svc => ({ metadata: s.metadata, spec: { selector: s.spec.selector } }), {
    name: 'svcCopies',
  });
  const podServices = (
    name: string,
    read: (ctx: Parameters<Parameters<typeof newCollection>[1]>[0], f: ReturnType<typeof filterSelects>) => Svc[],
  ) =>
    add(
      name,
      newCollection(
        pods,
        (ctx, p) => ({
          metadata: p.metadata,
          nonEmpty: sorted(read(ctx, filterSelectsNonEmpty(p.metadata.labels)).map(key)),
          any: sorted(read(ctx, filterSelects(p.metadata.labels)).map(key)),
        }),
        { name },
      ),
      (s) =>
        s.pods.map((p) => {
          const selecting = (nonEmpty: boolean): string[] =>
            sorted(
              s.svcs
                .filter((svc) => {
                  const sel = labelSelectorOf(svc);
                  return !(nonEmpty && isEmptySelector(sel)) && matchesLabelSelector(sel, p.metadata.labels);
                })
                .map(key),
            );
          return { metadata: p.metadata, nonEmpty: selecting(true), any: selecting(false) };
        }),
    );
  podServices('podServices', (ctx, f) => fetch(ctx, svcs, f));
  podServices('podServicesByIndex', (ctx, f) => allSvcs.fetch(ctx, 'all', f));
  podServices('podServicesDerived', (ctx, f) => fetch(ctx, svcCopies, f));

  // Services reading the pods they select, by their full selector (text for plain maps, the object otherwise).
  add(
    'servicePods',
    newCollection(
      svcs,
      (ctx, svc) => {
        const sel = labelSelectorOf(svc);
        const filter =
          sel.matchExpressions === undefined
            ? filterLabelSelector(
                Object.entries(sel.matchLabels ?? {})
                  .map(([k, v]) => `${k}=${v}`)
                  .join(','),
              )
            : filterLabelSelector(sel);
        return { metadata: svc.metadata, pods: sorted(fetch(ctx, pods, filter).map(key)) };
      },
      { name: 'servicePods' },
    ),
    (s) =>
      s.svcs.map((svc) => ({
        metadata: svc.metadata,
        pods: sorted(s.pods.filter((p) => matchesLabelSelector(labelSelectorOf(svc), p.metadata.labels)).map(key)),
      })),
  );

  // Members: three static collections of claims, and one derived from the pods (ranked above the joins).
  const statics: StaticCollection<Claim>[] = [0, 1, 2].map((i) => newStaticCollection<Claim>([], { name: `member${i}` }));
  // Only n0's pods claim, so that no two inputs produce one key.
  const podClaims = newCollection(
    pods,
    (_ctx, p): Claim | undefined =>
      p.metadata.namespace === 'n0'
        ? { metadata: { name: `c${p.metadata.name.slice(1)}` }, from: 'pods', v: Object.keys(p.metadata.labels).length }
        : undefined,
    { name: 'podClaims' },
  );
  const allMembers: Collection<Claim>[] = [...statics, podClaims];
  const container = newStaticCollection<Collection<Claim>>([], { name: 'container' });
  const mergeClaims = (vs: Claim[]): Claim => ({
    metadata: vs[0]!.metadata,
    from: vs.map((v) => v.from).join('+'),
    v: vs.reduce((t, v) => t + v.v, 0),
  });
  const claimsByKey = (s: Snapshot): Map<string, Claim[]> => {
    const out = new Map<string, Claim[]>();
    for (const m of s.members) for (const c of m.list()) out.set(key(c), [...(out.get(key(c)) ?? []), c]);
    return out;
  };
  const merged = add('nestedMerged', nestedJoinWithMergeCollection(container, mergeClaims, { name: 'nestedMerged' }), (s) =>
    [...claimsByKey(s).values()].map(mergeClaims),
  );
  add('nestedFirst', nestedJoinCollection(container, { name: 'nestedFirst' }), (s) => [...claimsByKey(s).values()].map((vs) => vs[0]!));
  // A reader of the nested join, so that its batches must reach downstream once, after its members.
  add(
    'mergedTotal',
    newCollection(merged, (ctx, c) => ({ metadata: c.metadata, total: fetch(ctx, merged).length, v: c.v }), { name: 'mergedTotal' }),
    (s) => {
      const all = [...claimsByKey(s).values()].map(mergeClaims);
      return all.map((c) => ({ metadata: c.metadata, total: all.length, v: c.v }));
    },
  );
  return { pods, svcs, statics, allMembers, container, checked };
}

function apply(into: Map<string, unknown>, events: readonly Event<unknown>[], keyFn: (o: unknown) => string): string | undefined {
  for (const e of events) {
    const k = keyFn(e.new ?? e.old);
    if (e.type === 'add' && into.has(k)) return `add of present key ${k}`;
    if (e.type !== 'add' && into.get(k) !== e.old) return `${e.type} of ${k} whose old value is not the one held`;
    if (e.type === 'update' && equals(e.old, e.new)) return `update of ${k} between equal values`;
    if (e.type === 'delete') into.delete(k);
    else into.set(k, e.new);
  }
  return undefined;
}

function run(seed: number, ops: number): void {
  const r = new Random(seed);
  const g = buildGraph();
  const watched = g.checked.map((c) => {
    const map = new Map<string, unknown>();
    const keyFn = internal(c.collection).keyOf;
    const state = { batches: 0, problem: undefined as string | undefined };
    c.collection.registerBatch((events) => {
      state.batches++;
      state.problem ??= apply(map, events, keyFn);
    });
    return { c, map, state, keyFn };
  });
  const recent: string[] = [];
  const mutation = (): string => {
    const x = r.int(100);
    if (x < 22) {
      const p: Pod = { metadata: { name: r.pick(POD_NAMES), namespace: r.pick(NAMESPACES), labels: randomLabels(r) } };
      g.pods.updateObject(p);
      return `pods.update ${JSON.stringify(p)}`;
    }
    if (x < 28) {
      const k = `${r.pick(NAMESPACES)}/${r.pick(POD_NAMES)}`;
      g.pods.deleteObject(k);
      return `pods.delete ${k}`;
    }
    if (x < 48) {
      const s: Svc = { metadata: { name: r.pick(SVC_NAMES), namespace: r.pick(NAMESPACES) }, spec: { selector: randomSelector(r) } };
      g.svcs.updateObject(s);
      return `svcs.update ${JSON.stringify(s)}`;
    }
    if (x < 53) {
      const k = `${r.pick(NAMESPACES)}/${r.pick(SVC_NAMES)}`;
      g.svcs.deleteObject(k);
      return `svcs.delete ${k}`;
    }
    if (x < 68) {
      const i = r.int(g.statics.length);
      const c: Claim = { metadata: { name: r.pick(CLAIM_NAMES) }, from: `m${i}`, v: r.int(5) };
      g.statics[i]!.updateObject(c);
      return `member${i}.update ${JSON.stringify(c)}`;
    }
    if (x < 74) {
      const i = r.int(g.statics.length);
      const k = r.pick(CLAIM_NAMES);
      g.statics[i]!.deleteObject(k);
      return `member${i}.delete ${k}`;
    }
    if (x < 84) {
      const m = r.pick(g.allMembers);
      g.container.updateObject(m);
      return `container.add ${m.name}`;
    }
    if (x < 91) {
      const m = r.pick(g.allMembers);
      g.container.deleteObject(String(m.uid));
      return `container.delete ${m.name}`;
    }
    const n = 2 + r.int(5);
    const inner: string[] = [];
    batch(() => {
      for (let i = 0; i < n; i++) inner.push(mutation());
    });
    return `batch[${inner.join('; ')}]`;
  };
  for (let op = 0; op < ops; op++) {
    const before = watched.map((w) => w.state.batches);
    recent.push(mutation());
    if (recent.length > 6) recent.shift();
    const snap: Snapshot = { pods: g.pods.list(), svcs: g.svcs.list(), members: g.container.list() };
    watched.forEach(({ c, map, state, keyFn }, i) => {
      const fail = (why: string): never => {
        throw new Error(`seed ${seed}, op ${op}, collection ${c.name}: ${why}\nlast operations:\n  ${recent.join('\n  ')}`);
      };
      if (state.batches - before[i]! > 1) fail(`${state.batches - before[i]!} batches in one transaction`);
      if (state.problem !== undefined) fail(`bad event stream: ${state.problem}`);
      const want = c.expected(snap);
      const list = c.collection.list();
      const wantByKey = new Map(want.map((w) => [keyFn(w), w]));
      if (list.length !== want.length || !list.every((o) => equals(o, wantByKey.get(keyFn(o))))) {
        fail(
          `list() differs from the recomputation:\n got  ${canonicalList(list).join('\n      ')}\n want ${canonicalList(want).join('\n      ')}`,
        );
      }
      if (map.size !== list.length || list.some((o) => map.get(keyFn(o)) !== o)) fail('the events rebuilt something else than list()');
    });
  }
}

describe('differential: full selectors and nested joins', () => {
  const seedCount = Number(process.env['RXKRT_DIFF_SEEDS'] ?? 4);
  for (let seed = 1; seed <= seedCount; seed++) {
    it(`should match a from-scratch recomputation after every operation (seed ${seed}, 600 operations)`, () => run(seed, 600), 60_000);
  }
});
