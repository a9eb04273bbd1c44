import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newSingleton,
  newIndex,
  fetch,
  fetchOne,
  fetchOrList,
  filterKey,
  filterKeys,
  filterObjectName,
  filterIndex,
  filterLabel,
  filterSelects,
  filterSelectsNonEmpty,
  filterGeneric,
  UsageError,
  type Collection,
  type HandlerContext,
  type TransformError,
} from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';
import { keyOfObj, obj, reader, type Obj } from './fetch.fixtures.js';

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
