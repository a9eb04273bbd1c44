import { describe, it, expect, afterEach } from '@jest/globals';
import {
  batch,
  fetch,
  filterGeneric,
  filterSelects,
  filterSelectsNonEmpty,
  isSubset,
  newCollection,
  newManyCollection,
  newSingleton,
  newStaticCollection,
  selectsNonEmpty,
  setStrictMode,
  type Collection,
  type Labels,
} from '../../../src/index.js';
import { seededRandom } from '../../../src/testing/index.js';
import { captureLog } from '../../helpers/fixtures.js';
import { internal } from '../../../src/engine/internalCollection.js';

// A derived collection answers fetches by selector from a selector lookup once it holds 8 objects or more,
// as sources and index groups do. Its `values()` follow its entries, where an input's entry comes first
// even if its output appears later: the lookup keeps that order, so a fetch answers the same list, in the
// same order, as a scan of the collection would.

interface Spec {
  metadata: { name: string };
  /** What the transform makes of it: no output, one selector, or (many-output transforms) several. */
  selectors: Array<{ name: string; selector: Labels }>;
}
interface Svc {
  metadata: { name: string };
  spec: { selector: Labels };
}

const spec = (name: string, ...selectors: Array<[string, Labels]>): Spec => ({
  metadata: { name },
  selectors: selectors.map(([n, selector]) => ({ name: n, selector })),
});
const names = (xs: readonly Svc[]): string[] => xs.map((s) => s.metadata.name);
type Lookup = { slots: Map<string, unknown> } | undefined;
const lookupOf = (c: Collection<unknown>): Lookup => (c as unknown as { indexes: { lookup: Lookup } }).indexes.lookup;

/** One output per spec: its first selector, named like the spec (none when it has no selectors). */
function oneEach(specs: Collection<Spec>): Collection<Svc> {
  return newCollection(
    specs,
    (_ctx, s) =>
      s.selectors.length === 0 ? undefined : { metadata: { name: s.metadata.name }, spec: { selector: s.selectors[0]!.selector } },
    { name: 'Services' },
  );
}

describe('DerivedCollection values', () => {
  it('should step through the visible values in list order, skipping entries without one, each iterator on its own', () => {
    const specs = newStaticCollection<Spec>([
      spec('s0'),
      spec('s1', ['s1', { app: 'a' }]),
      spec('s2'),
      spec('s3', ['s3', { app: 'b' }]),
      spec('s4'),
    ]);
    const services = internal(oneEach(specs));
    expect(names([...services.values()])).toEqual(['s1', 's3']);
    const a = services.values();
    const b = services.values();
    const first = a.next();
    expect(first).toEqual({ done: false, value: expect.objectContaining({ metadata: { name: 's1' } }) });
    expect(b.next().value?.metadata.name).toBe('s1');
    expect(b.next().value?.metadata.name).toBe('s3');
    expect(a.next().value?.metadata.name).toBe('s3');
    expect(a.next()).toEqual({ done: true, value: undefined });
    expect(b.next().done).toBe(true);
    // A scan through a filter that no lookup answers goes through them too.
    const found = newSingleton((ctx) =>
      names(
        fetch(
          ctx,
          oneEach(specs),
          filterGeneric((s: Svc) => s.spec.selector['app'] === 'b'),
        ),
      ),
    );
    expect(found.get()).toEqual(['s3']);
  });
});

describe('DerivedCollection selector lookup', () => {
  afterEach(() => setStrictMode(true));

  it('should answer a fetch by selector from a lookup once it holds 8 objects, as a scan would', () => {
    const specs = newStaticCollection<Spec>(Array.from({ length: 12 }, (_, i) => spec(`s${i}`, [`s${i}`, { app: `a${i % 3}` }])));
    const services = oneEach(specs);
    const found = newSingleton((ctx) => names(fetch(ctx, services, filterSelectsNonEmpty({ app: 'a1', tier: 'x' }))), { name: 'Found' });
    expect(found.get()).toEqual(['s1', 's4', 's7', 's10']);
    expect(lookupOf(services)?.slots.size).toBe(12);
    // A selector change refiles the object; the fetch sees it at the object's place.
    specs.updateObject(spec('s2', ['s2', { tier: 'x' }]));
    expect(found.get()).toEqual(['s1', 's2', 's4', 's7', 's10']);
    specs.deleteObject('s4');
    expect(found.get()).toEqual(['s1', 's2', 's7', 's10']);
  });

  it('should keep an input’s place when its output appears after later inputs’ outputs', () => {
    // s0 and s1 produce nothing at first: their entries exist (they are inputs) ahead of everyone else's.
    const specs = newStaticCollection<Spec>([
      spec('s0'),
      spec('s1'),
      ...Array.from({ length: 9 }, (_, i) => spec(`t${i}`, [`t${i}`, { app: 'web' }])),
    ]);
    const services = oneEach(specs);
    const found = newSingleton((ctx) => names(fetch(ctx, services, filterSelects({ app: 'web' }))), { name: 'Found' });
    expect(found.get()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    specs.updateObject(spec('s1', ['s1', { app: 'web' }]));
    expect(names(services.list())[0]).toBe('s1');
    expect(found.get()).toEqual(['s1', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    // Gone and back: the output keeps its input's place, since the input never left.
    specs.updateObject(spec('s1'));
    specs.updateObject(spec('s0', ['s0', { app: 'web' }]));
    specs.updateObject(spec('s1', ['s1', { app: 'web' }]));
    expect(found.get()).toEqual(['s0', 's1', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
    // An input that leaves and comes back goes last, in the lookup as in the entries.
    specs.deleteObject('s0');
    specs.updateObject(spec('s0', ['s0', { app: 'web' }]));
    expect(found.get()).toEqual(['s1', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 's0']);
    expect(found.get()).toEqual(names(services.list()));
  });

  it('should fail strict mode’s check when the lookup files a key that holds no value', () => {
    const specs = newStaticCollection<Spec>([spec('s0'), ...Array.from({ length: 9 }, (_, i) => spec(`t${i}`, [`t${i}`, { app: 'web' }]))]);
    const services = oneEach(specs);
    newSingleton((ctx) => fetch(ctx, services, filterSelects({ app: 'web' })).length);
    const slots = (lookupOf(services) as unknown as { slots: Map<string, { bucket: unknown }> }).slots;
    slots.get('s0')!.bucket = [];
    expect(() => specs.updateObject(spec('t0', ['t0', { app: 'db' }]))).toThrow(
      /collection "Services": selector lookup files "s0", which holds no value/,
    );
  });

  it('should give what a scan of the collection gives, in its order, through random edits of a many-output collection', () => {
    // Conflicting outputs are reported (logged once each): expected here.
    const log = captureLog();
    for (const seed of [1, 2, 3]) {
      const rand = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const randomLabels = (p: number): Labels => {
        const l: Record<string, string> = {};
        for (const n of ['app', 'tier', 'zone']) if (rand() < p) l[n] = pick(['a', 'b', 'c']);
        return l;
      };
      const randomSpec = (name: string): Spec => {
        // Outputs are named from a small pool, so that inputs meet (conflicts) and outputs change hands.
        const n = Math.floor(rand() * 3);
        return spec(
          name,
          ...Array.from({ length: n }, (): [string, Labels] => [
            pick(['o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8', 'o9', 'o10', 'o11', name]),
            randomLabels(0.5),
          ]),
        );
      };
      const specs = newStaticCollection<Spec>(Array.from({ length: 14 }, (_, i) => randomSpec(`i${i}`)));
      const services = newManyCollection(
        specs,
        (_ctx, s): Svc[] => {
          const seen = new Set<string>();
          const out: Svc[] = [];
          for (const x of s.selectors) {
            if (seen.has(x.name)) continue;
            seen.add(x.name);
            out.push({ metadata: { name: x.name }, spec: { selector: x.selector } });
          }
          return out;
        },
        { name: 'Services' },
      );
      const queries = Array.from({ length: 6 }, () => randomLabels(0.8));
      const consumers = newStaticCollection(queries.map((labels, i) => ({ metadata: { name: `q${i}` }, labels })));
      const answers = newCollection(consumers, (ctx, q) => ({
        metadata: q.metadata,
        selects: names(fetch(ctx, services, filterSelects(q.labels))),
        nonEmpty: names(fetch(ctx, services, filterSelectsNonEmpty(q.labels))),
      }));
      let lookedUp = false;
      for (let step = 0; step < 300; step++) {
        batch(() => {
          const edits = 1 + Math.floor(rand() * 3);
          for (let e = 0; e < edits; e++) {
            const name = `i${Math.floor(rand() * 18)}`;
            if (rand() < 0.2) specs.deleteObject(name);
            else specs.updateObject(randomSpec(name));
          }
        });
        lookedUp ||= lookupOf(services) !== undefined;
        const all = services.list();
        queries.forEach((labels, i) => {
          const got = answers.getKey(`q${i}`)!;
          expect(got.selects).toEqual(names(all.filter((s) => isSubset(s.spec.selector, labels))));
          expect(got.nonEmpty).toEqual(names(all.filter((s) => selectsNonEmpty(s.spec.selector, labels))));
        });
      }
      // The run did reach the lookup (and strict mode checked it after every transaction).
      expect(lookedUp).toBe(true);
    }
    expect(log.lines.some((l) => l.includes('is already produced by input'))).toBe(true);
    log.restore();
  });
});
