import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newSingleton,
  newIndex,
  fetch,
  fetchOne,
  fetchOrList,
  partialFetch,
  filterKey,
  filterKeys,
  filterObjectName,
  filterIndex,
  filterLabel,
  filterSelects,
  filterSelectsNonEmpty,
  filterGeneric,
  batch,
  joinCollection,
  UsageError,
  type Collection,
  type FetchFilter,
  type HandlerContext,
  type TransformError,
} from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';

interface Obj {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { selector?: Record<string, string> };
  v?: number;
}
const obj = (key: string, labels?: Record<string, string>, selector?: Record<string, string>, v?: number): Obj => {
  const [a, b] = key.split('/') as [string, string?];
  const metadata = b === undefined ? { name: a! } : { namespace: a!, name: b };
  return {
    metadata: { ...metadata, ...(labels ? { labels } : {}) },
    ...(selector ? { spec: { selector } } : {}),
    ...(v !== undefined ? { v } : {}),
  };
};
const keyOfObj = (o: Obj): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/**
 * A one-input reader of `src` through `filters`: its value is the sorted keys it fetched, `runs` counts
 * its transform runs (to show which changes recompute it).
 */
function reader(src: Collection<Obj>, ...filters: FetchFilter<Obj>[]) {
  let runs = 0;
  const s = newSingleton((ctx) => {
    runs++;
    return {
      keys: fetch(ctx, src, ...filters)
        .map(keyOfObj)
        .sort(),
    };
  });
  return { keys: () => s.get()!.keys, runs: () => runs, singleton: s };
}

describe('fetch', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should read one key with filterKey and recompute only for that key', () => {
    const src = newStaticCollection<Obj>([obj('ns/a'), obj('ns/b')]);
    const r = reader(src, filterKey('ns/a'));
    expect(r.keys()).toEqual(['ns/a']);
    src.updateObject(obj('ns/b', { x: '1' }));
    src.updateObject(obj('ns/c'));
    expect(r.runs()).toBe(1);
    src.updateObject(obj('ns/a', { x: '1' }));
    expect(r.runs()).toBe(2);
    src.deleteObject('ns/a');
    expect(r.keys()).toEqual([]);
    src.updateObject(obj('ns/a'));
    expect(r.keys()).toEqual(['ns/a']);
  });

  it('should read several keys with filterKeys, and nothing with no keys', () => {
    const src = newStaticCollection<Obj>([obj('ns/a'), obj('ns/b'), obj('ns/c')]);
    const r = reader(src, filterKeys('ns/c', 'ns/a', 'ns/a'));
    expect(r.keys()).toEqual(['ns/a', 'ns/c']);
    src.updateObject(obj('ns/b', { x: '1' }));
    expect(r.runs()).toBe(1);
    const none = reader(src, filterKeys());
    expect(none.keys()).toEqual([]);
    src.updateObject(obj('ns/a', { y: '1' }));
    src.updateObject(obj('ns/z'));
    expect(none.runs()).toBe(1);
  });

  it('should read an object by name and namespace with filterObjectName', () => {
    const src = newStaticCollection<Obj>([obj('ns/a'), obj('a')]);
    expect(reader(src, filterObjectName({ name: 'a', namespace: 'ns' })).keys()).toEqual(['ns/a']);
    expect(reader(src, filterObjectName({ name: 'a' })).keys()).toEqual(['a']);
    expect(() => filterObjectName({ name: '' })).toThrow(UsageError);
  });

  it('should read through an index with filterIndex and recompute only for that index key', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', { team: 'x' }), obj('ns/b', { team: 'y' })]);
    const byTeam = newIndex(src, 'team', (o) => (o.metadata.labels?.['team'] ? [o.metadata.labels['team']] : []));
    const r = reader(src, filterIndex(byTeam, 'x'));
    expect(r.keys()).toEqual(['ns/a']);
    src.updateObject(obj('ns/b', { team: 'y', other: '1' }));
    expect(r.runs()).toBe(1);
    src.updateObject(obj('ns/b', { team: 'x' }));
    expect(r.keys()).toEqual(['ns/a', 'ns/b']);
    src.updateObject(obj('ns/a', { team: 'z' }));
    expect(r.keys()).toEqual(['ns/b']);
  });

  it('should refuse an index of another collection', () => {
    const a = newStaticCollection<Obj>([]);
    const b = newStaticCollection<Obj>([obj('ns/x')]);
    const ix = newIndex(a, 'all', () => ['k']);
    const errors: TransformError[] = [];
    const s = newCollection(b, (ctx, o) => fetch(ctx, b, filterIndex(ix, 'k')).length + keyOfObj(o));
    s.errors$.subscribe((e) => errors.push(e));
    b.updateObject(obj('ns/y'));
    expect(errors.some((e) => e.error instanceof UsageError)).toBe(true);
  });

  it('should read objects whose labels contain the given ones with filterLabel', () => {
    const src = newStaticCollection<Obj>([
      obj('ns/a', { app: 'x', v: '1' }),
      obj('ns/b', { app: 'x' }),
      obj('ns/c', { app: 'y' }),
      obj('ns/d'),
    ]);
    const r = reader(src, filterLabel({ app: 'x' }));
    expect(r.keys()).toEqual(['ns/a', 'ns/b']);
    expect(reader(src, filterLabel({})).keys()).toEqual(['ns/a', 'ns/b', 'ns/c', 'ns/d']);
    // Stopping to match recomputes (the old object matched).
    src.updateObject(obj('ns/a', { app: 'y' }));
    expect(r.keys()).toEqual(['ns/b']);
    const runs = r.runs();
    src.updateObject(obj('ns/c', { app: 'z' }));
    expect(r.runs()).toBe(runs);
  });

  it('should read objects whose selector selects the labels with filterSelects (empty selects all)', () => {
    const src = newStaticCollection<Obj>([
      obj('ns/all', undefined, {}),
      obj('ns/none'),
      obj('ns/app', undefined, { app: 'x' }),
      obj('ns/both', undefined, { app: 'x', tier: 'web' }),
      obj('ns/other', undefined, { app: 'y' }),
    ]);
    expect(reader(src, filterSelects({ app: 'x', tier: 'web' })).keys()).toEqual(['ns/all', 'ns/app', 'ns/both', 'ns/none']);
    expect(reader(src, filterSelects({ app: 'x' })).keys()).toEqual(['ns/all', 'ns/app', 'ns/none']);
  });

  it('should not let an empty selector select anything with filterSelectsNonEmpty', () => {
    const src = newStaticCollection<Obj>([obj('ns/all', undefined, {}), obj('ns/none'), obj('ns/app', undefined, { app: 'x' })]);
    const r = reader(src, filterSelectsNonEmpty({ app: 'x', tier: 'web' }));
    expect(r.keys()).toEqual(['ns/app']);
    src.updateObject(obj('ns/all', undefined, { tier: 'web' }));
    expect(r.keys()).toEqual(['ns/all', 'ns/app']);
    expect(reader(src, filterSelectsNonEmpty(undefined)).keys()).toEqual([]);
  });

  it('should read objects a predicate accepts with filterGeneric', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', undefined, undefined, 1), obj('ns/b', undefined, undefined, 2)]);
    const r = reader(
      src,
      filterGeneric((o: Obj) => (o.v ?? 0) > 1),
    );
    expect(r.keys()).toEqual(['ns/b']);
    src.updateObject(obj('ns/a', undefined, undefined, 5));
    expect(r.keys()).toEqual(['ns/a', 'ns/b']);
  });

  it('should AND different filters together, and let the last of one kind win', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', { app: 'x' }), obj('ns/b', { app: 'x' }), obj('ns/c', { app: 'y' })]);
    expect(reader(src, filterKeys('ns/a', 'ns/c'), filterLabel({ app: 'x' })).keys()).toEqual(['ns/a']);
    expect(reader(src, filterLabel({ app: 'y' }), filterLabel({ app: 'x' })).keys()).toEqual(['ns/a', 'ns/b']);
  });

  it('should refuse a key filter and an index filter together', () => {
    const src = newStaticCollection<Obj>([obj('ns/a')]);
    const ix = newIndex(src, 'all', () => ['k']);
    expect(() => fetchOrList(undefined, src, filterKey('ns/a'), filterIndex(ix, 'k'))).toThrow(UsageError);
  });

  it('should refuse to run without a transform context', () => {
    const src = newStaticCollection<Obj>([]);
    expect(() => fetch(undefined as unknown as HandlerContext, src)).toThrow(UsageError);
    expect(() => fetch({} as unknown as HandlerContext, src)).toThrow(UsageError);
  });

  it('should refuse a context kept after its transform returned', () => {
    const src = newStaticCollection<Obj>([obj('ns/a')]);
    let kept: HandlerContext | undefined;
    newSingleton((ctx) => {
      kept = ctx;
      return 1;
    });
    expect(() => fetch(kept!, src)).toThrow(/already returned/);
  });

  it('should report a collection that fetches from itself', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<Obj>([obj('ns/a')]);
    const holder: { self?: Collection<string> } = {};
    holder.self = newCollection(src, (ctx, o) => (holder.self ? `${fetch(ctx, holder.self).length}` : keyOfObj(o)));
    holder.self.errors$.subscribe((e) => errors.push(e));
    src.updateObject(obj('ns/b'));
    expect(errors).toHaveLength(1);
    expect((errors[0]!.error as Error).message).toMatch(/itself/);
  });
});

describe('fetchOne', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should return the one match, or undefined', () => {
    const src = newStaticCollection<Obj>([obj('ns/a')]);
    const s = newSingleton((ctx) => ({ one: fetchOne(ctx, src, filterKey('ns/a')), none: fetchOne(ctx, src, filterKey('ns/z')) }));
    expect(s.get()).toEqual({ one: obj('ns/a'), none: undefined });
  });

  it('should throw when more than one matches, naming the collection', () => {
    const src = newStaticCollection<Obj>([obj('ns/a'), obj('ns/b')], { name: 'Many' });
    const inputs = newStaticCollection<string>(['in']);
    const errors: TransformError[] = [];
    const c = newCollection(inputs, (ctx, i) => `${i}:${keyOfObj(fetchOne(ctx, src)!)}`, { name: 'Reader' });
    c.errors$.subscribe((e) => errors.push(e));
    inputs.updateObject('in2');
    expect(c.list()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Reader');
    expect(errors[0]!.key).toBe('in2');
    expect((errors[0]!.error as Error).message).toMatch(/"Many"/);
    expect((errors[0]!.error as Error).message).toMatch(/ns\/a/);
    // The dependency was recorded: once one object is left, the transform succeeds.
    src.deleteObject('ns/b');
    expect(c.list().sort()).toEqual(['in2:ns/a', 'in:ns/a']);
  });
});

describe('fetchOrList', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should list with the filters when there is no context', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', { app: 'x' }), obj('ns/b')]);
    expect(fetchOrList(undefined, src, filterLabel({ app: 'x' })).map(keyOfObj)).toEqual(['ns/a']);
    expect(fetchOrList(undefined, src).map(keyOfObj).sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('should fetch, recording the dependency, when given a context', () => {
    const src = newStaticCollection<Obj>([obj('ns/a')]);
    const s = newSingleton((ctx) => fetchOrList(ctx, src).length);
    src.updateObject(obj('ns/b'));
    expect(s.get()).toBe(2);
  });
});

describe('partialFetch', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should return projections and ignore updates whose projection is equal', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', { app: 'x' }, undefined, 1)]);
    let runs = 0;
    const s = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, src, (o) => o.metadata.labels?.['app'] ?? '', filterLabel({ app: 'x' }))
        .sort()
        .join(',');
    });
    expect(s.get()).toBe('x');
    src.updateObject(obj('ns/a', { app: 'x' }, undefined, 2));
    expect(runs).toBe(1);
    // Adds and deletes always count.
    src.updateObject(obj('ns/b', { app: 'x' }, undefined, 2));
    expect(runs).toBe(2);
    expect(s.get()).toBe('x,x');
    src.deleteObject('ns/b');
    expect(runs).toBe(3);
    // An update with a different projection counts.
    src.updateObject(obj('ns/a', { app: 'y' }));
    expect(runs).toBe(4);
    expect(s.get()).toBe('');
  });

  it('should require a projection function', () => {
    const src = newStaticCollection<Obj>([]);
    const inputs = newStaticCollection<string>([]);
    const errors: TransformError[] = [];
    const c = newCollection(inputs, (ctx, i) => `${i}${partialFetch(ctx, src, undefined as unknown as (o: Obj) => string).length}`);
    c.errors$.subscribe((e) => errors.push(e));
    inputs.updateObject('a');
    expect(c.list()).toEqual([]);
    expect(errors.map((e) => e.error instanceof UsageError)).toEqual([true]);
  });
});

describe('partialFetch membership', () => {
  // Deliberate difference from krt: an update whose projection is equal is suppressed only when the object
  // stays on the same side of the fetch's filters. Moving into or out of the result always recomputes.
  interface Pol {
    metadata: { name: string; namespace: string };
    spec: { selector: Record<string, string> };
    status?: { n: number };
  }
  const pol = (sel: Record<string, string>, n?: number): Pol => ({
    metadata: { name: 'p', namespace: 'ns' },
    spec: { selector: sel },
    ...(n !== undefined ? { status: { n } } : {}),
  });

  it('should recompute when an equal-projection update moves an object into or out of the result, and only then', () => {
    const policies = newStaticCollection<Pol>([pol({ tier: 'web' })]);
    let runs = 0;
    const names = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, policies, (p) => p.metadata.name, filterSelects({ tier: 'db' })).join(',');
    });
    expect(names.get()).toBe('');
    const base = runs;
    policies.updateObject(pol({ tier: 'web' }, 1)); // status only, still outside the result: nothing to do
    expect(runs).toBe(base);
    policies.updateObject(pol({ tier: 'db' }, 1)); // same projection ('p'), but now selected: must rerun
    expect(names.get()).toBe('p');
    expect(runs).toBe(base + 1);
    policies.updateObject(pol({ tier: 'db' }, 2)); // status only, still inside: suppressed
    expect(runs).toBe(base + 1);
    policies.updateObject(pol({ app: 'x' }, 2)); // leaves the result: must rerun
    expect(names.get()).toBe('');
    expect(runs).toBe(base + 2);
  });
});

describe('fetch by selector over a whole collection', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  /** The keys a scan of `c` in `list()` order selects: what a fetch must return, in this order. */
  const scanned = (c: Collection<Obj>, labels: Record<string, string>, nonEmpty: boolean): string[] =>
    c
      .list()
      .filter((o) => {
        const sel = o.spec?.selector ?? {};
        return (!nonEmpty || Object.keys(sel).length > 0) && Object.entries(sel).every(([k, v]) => labels[k] === v);
      })
      .map(keyOfObj);

  it('should give, in list() order, what a scan gives, as objects come, change selector, go and come back', () => {
    const labels = { app: 'web', tier: 'front' };
    const build = (src: Collection<Obj>) =>
      newSingleton((ctx) => ({
        nonEmpty: fetch(ctx, src, filterSelectsNonEmpty(labels)).map(keyOfObj),
        any: fetch(ctx, src, filterSelects(labels)).map(keyOfObj),
      }));
    const sources = newStaticCollection<Obj>([]);
    // A derived collection (its values follow its entries: always scanned) and a join (state-ordered).
    const derived = newCollection(sources, (_ctx, o) => o);
    const joined = joinCollection([sources]);
    const seen = [sources, derived, joined].map((c) => ({ c, s: build(c) }));
    const check = (): void => {
      for (const { c, s } of seen) expect(s.get()).toEqual({ nonEmpty: scanned(c, labels, true), any: scanned(c, labels, false) });
    };
    const selectors: Record<string, string>[] = [{ app: 'web' }, { app: 'db' }, {}, { tier: 'front' }, { app: 'web', tier: 'back' }];
    batch(() => {
      for (let i = 0; i < 15; i++) sources.updateObject(obj(`ns/s${i}`, undefined, selectors[i % selectors.length]));
    });
    check();
    expect(seen[0]!.s.get()!.nonEmpty).toEqual(['ns/s0', 'ns/s3', 'ns/s5', 'ns/s8', 'ns/s10', 'ns/s13']);
    sources.updateObject(obj('ns/s1', undefined, { app: 'web' })); // starts selecting, keeps its place
    check();
    sources.updateObject(obj('ns/s0', undefined, { app: 'db' })); // stops selecting
    check();
    sources.deleteObject('ns/s3');
    sources.updateObject(obj('ns/s3', undefined, { tier: 'front' })); // comes back last
    check();
    expect(seen[0]!.s.get()!.nonEmpty.at(-1)).toBe('ns/s3');
    sources.deleteObjects(() => true);
    check();
  });

  it('should give what a scan gives for a selector with an undefined value (untyped input), through the lookup', () => {
    // Twelve services: past the size where a collection answers selector fetches from its lookup.
    const loose = { ...obj('ns/loose'), spec: { selector: { app: undefined } as unknown as Record<string, string> } };
    const src = newStaticCollection<Obj>([...Array.from({ length: 11 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i}` })), loose]);
    const keysFor = (labels: Record<string, string>) => newSingleton((ctx) => fetch(ctx, src, filterSelectsNonEmpty(labels)).map(keyOfObj));
    // The filter's own test reads `labels.app`, undefined for a label map without `app`: the loose selector selects it.
    expect(keysFor({ tier: 'front' }).get()).toEqual(['ns/loose']);
    expect(keysFor({ app: 'a3' }).get()).toEqual(['ns/s3']);
  });

  it('should recompute only readers whose selector fetch the change concerns', () => {
    const src = newStaticCollection<Obj>(Array.from({ length: 10 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i}` })));
    const r = reader(src, filterSelectsNonEmpty({ app: 'a3' }));
    expect(r.keys()).toEqual(['ns/s3']);
    src.updateObject(obj('ns/s5', undefined, { app: 'a5', x: 'y' }));
    expect(r.runs()).toBe(1);
    src.updateObject(obj('ns/s5', undefined, { app: 'a3' }));
    expect(r.keys()).toEqual(['ns/s3', 'ns/s5']);
    expect(r.runs()).toBe(2);
  });

  it('should answer fetchOne, fetchOrList and partialFetch by selector from the lookup as from a scan', () => {
    const src = newStaticCollection<Obj>(Array.from({ length: 12 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i % 6}` }, i)));
    const one = newSingleton((ctx) =>
      fetchOne(
        ctx,
        src,
        filterSelectsNonEmpty({ app: 'a1', tier: 'x' }),
        filterGeneric((o: Obj) => (o.v ?? 0) < 6),
      ),
    );
    expect(one.get()?.metadata.name).toBe('s1');
    expect(fetchOrList(undefined, src, filterSelects({ app: 'a2' })).map(keyOfObj)).toEqual(['ns/s2', 'ns/s8']);
    let runs = 0;
    const vs = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, src, (o: Obj) => o.metadata.name, filterSelectsNonEmpty({ app: 'a3' })).join(',');
    });
    expect(vs.get()).toBe('s3,s9');
    // Same projection, same side of the filter: nothing to recompute.
    src.updateObject(obj('ns/s9', undefined, { app: 'a3' }, 90));
    expect(runs).toBe(1);
    // Moving out of the selection does.
    src.updateObject(obj('ns/s9', undefined, { app: 'a4' }, 90));
    expect(vs.get()).toBe('s3');
  });

  it('should refile objects whose selector method returns a new map on every call, and compare values, not maps', () => {
    interface Sel {
      metadata: { name: string; namespace: string };
      app: string;
      getLabelSelector(): Record<string, string>;
    }
    const sel = (name: string, app: string): Sel => ({
      metadata: { name, namespace: 'ns' },
      app,
      getLabelSelector() {
        return { app: this.app };
      },
    });
    const src = newStaticCollection<Sel>(Array.from({ length: 9 }, (_, i) => sel(`s${i}`, `a${i % 3}`)));
    const names = newSingleton((ctx) =>
      fetch(ctx, src, filterSelectsNonEmpty({ app: 'a1' }))
        .map((o) => o.metadata.name)
        .join(','),
    );
    expect(names.get()).toBe('s1,s4,s7');
    src.updateObject(sel('s4', 'a2'));
    src.updateObject(sel('s0', 'a1'));
    expect(names.get()).toBe('s0,s1,s7');
  });

  it('should read a selector when the lookup files its object, not again at every fetch it answers', () => {
    let reads = 0;
    interface Sel {
      metadata: { name: string; namespace: string };
      app: string;
      getLabelSelector(): Record<string, string>;
    }
    const sel = (name: string, app: string): Sel => ({
      metadata: { name, namespace: 'ns' },
      app,
      getLabelSelector() {
        reads++;
        return { app: this.app };
      },
    });
    const src = newStaticCollection<Sel>(Array.from({ length: 10 }, (_, i) => sel(`s${i}`, `a${i % 5}`)));
    const readers = newStaticCollection<{ metadata: { name: string; namespace: string }; app: string }>([]);
    const found = newCollection(readers, (ctx, r) => ({
      metadata: r.metadata,
      names: fetch(ctx, src, filterSelectsNonEmpty({ app: r.app })).map((o) => o.metadata.name),
    }));
    readers.updateObject({ metadata: { name: 'r0', namespace: 'ns' }, app: 'a1' });
    const filed = reads; // the lookup read every selector once, when it was built
    expect(filed).toBe(10);
    batch(() => {
      for (let i = 1; i <= 50; i++) readers.updateObject({ metadata: { name: `r${i}`, namespace: 'ns' }, app: `a${i % 5}` });
    });
    expect(reads).toBe(filed);
    expect(found.getKey('ns/r3')?.names).toEqual(['s3', 's8']);
    // A change is filed once, plus the reads that find which readers it concerns (one per reader that might).
    src.updateObject(sel('s3', 'a4'));
    expect(found.getKey('ns/r3')?.names).toEqual(['s8']);
    expect(found.getKey('ns/r4')?.names).toEqual(['s3', 's4', 's9']);
  });
});
