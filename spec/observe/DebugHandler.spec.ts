import { describe, it, expect } from '@jest/globals';
import {
  DebugHandler,
  newStaticCollection,
  newStatic,
  newCollection,
  newManyCollection,
  newSingleton,
  newManyFromNothing,
  mapCollection,
  newIndex,
  joinCollection,
  joinWithMergeCollection,
  fetch,
  filterKey,
  type CollectionOptions,
} from '../../src/index.js';

interface Named {
  metadata: { name: string; namespace: string };
  v?: number;
}
const named = (name: string, v?: number): Named => ({ metadata: { name, namespace: 'ns' }, ...(v !== undefined ? { v } : {}) });

describe('DebugHandler', () => {
  it('should dump every registered collection in the shape of krt /debug/krtz, ordered by uid', () => {
    const debug = new DebugHandler();
    const pods = newStaticCollection<Named>([named('a', 1), named('b', 2)], { name: 'Pods', debugger: debug });
    const cms = newStaticCollection<Named>([named('cfg')], { name: 'ConfigMaps', debugger: debug });
    const derived = newCollection(
      pods,
      (ctx, p) =>
        (p.v ?? 0) > 1 ? { metadata: p.metadata, cfg: fetch(ctx, cms, filterKey('ns/cfg')).length } : (fetch(ctx, cms), undefined),
      { name: 'Derived', debugger: debug },
    );
    const dump = debug.dump();
    expect(dump.map((d) => d.name)).toEqual(['Pods', 'ConfigMaps', 'Derived']);
    expect(dump.map((d) => d.uid)).toEqual([pods.uid, cms.uid, derived.uid]);
    expect(dump[0]!.state).toEqual({ outputs: { 'ns/a': named('a', 1), 'ns/b': named('b', 2) }, synced: true });
    expect(dump[2]!.state).toEqual({
      outputs: { 'ns/b': { metadata: { name: 'b', namespace: 'ns' }, cfg: 1 } },
      inputCollection: 'Pods',
      inputs: {
        'ns/a': { dependencies: ['ConfigMaps'] },
        'ns/b': { outputs: ['ns/b'], dependencies: ['ConfigMaps'] },
      },
      synced: true,
    });
    // Serialises as a JSON array.
    const json = JSON.parse(JSON.stringify(debug)) as Array<{ uid: number; name: string; state: { synced: boolean } }>;
    expect(json).toHaveLength(3);
    expect(json[2]!.name).toBe('Derived');
    expect(debug.size).toBe(3);
  });

  it('should dump map, index and join collections with what they read', () => {
    const debug = new DebugHandler();
    const pods = newStaticCollection<Named>([named('a', 1), named('b', 2)], { name: 'Pods' });
    const more = newStaticCollection<Named>([named('c', 3)], { name: 'More' });
    mapCollection(pods, (p) => ({ ...p, v: (p.v ?? 0) * 10 }), { name: 'Mapped', debugger: debug });
    newIndex(pods, 'byV', (p) => [`${p.v ?? 0}`]).asCollection({ name: 'ByV', debugger: debug });
    joinCollection([pods, more], { name: 'Joined', debugger: debug });
    const [mapped, byV, joined] = debug.dump();
    expect(mapped!.state).toEqual({ outputs: { 'ns/a': named('a', 10), 'ns/b': named('b', 20) }, inputCollection: 'Pods', synced: true });
    expect(byV!.state).toEqual({
      outputs: { 1: { key: '1', objects: [named('a', 1)] }, 2: { key: '2', objects: [named('b', 2)] } },
      inputCollection: 'Pods',
      synced: true,
    });
    // A join's inputs are the keys of everything it reads, each once.
    expect(joined!.state.inputs).toEqual({ 'ns/a': {}, 'ns/b': {}, 'ns/c': {} });
    expect(Object.keys(joined!.state.outputs ?? {}).sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('should dump a static singleton and reflect unsynced collections', () => {
    const debug = new DebugHandler();
    newStatic<{ n: number }>({ n: 1 }, { name: 'Single', debugger: debug });
    newStaticCollection<Named>([], { name: 'Unsynced', synced: false, debugger: debug });
    const [single, unsynced] = debug.dump();
    expect(single!.state.synced).toBe(true);
    expect(Object.values(single!.state.outputs ?? {})).toEqual([{ n: 1 }]);
    expect(unsynced!.state).toEqual({ outputs: {}, synced: false });
  });

  it('should not register collections built without a debugger', () => {
    const debug = new DebugHandler();
    newStaticCollection<Named>([]);
    expect(debug.dump()).toEqual([]);
  });

  /** Every kind built with the same stop signal and debugger. */
  function buildAll(opts: CollectionOptions, synced: boolean): number {
    const pods = newStaticCollection<Named>([named('a', 1)], { ...opts, synced, name: 'pods' });
    const other = newStaticCollection<Named>([], { ...opts, synced, name: 'other' });
    const single = newStatic<Named>(named('s'), { ...opts, startSynced: synced, name: 'static' });
    newCollection(pods, (ctx, p) => ({ ...p, n: fetch(ctx, other).length }), { ...opts, name: 'collection' });
    newManyCollection(pods, (_ctx, p) => [p], { ...opts, name: 'many' });
    newSingleton((ctx) => fetch(ctx, pods).length, { ...opts, name: 'singleton' });
    newManyFromNothing((ctx) => fetch(ctx, single.asCollection()), { ...opts, name: 'manyFromNothing' });
    mapCollection(pods, (p) => ({ ...p, mapped: true }), { ...opts, name: 'map' });
    newIndex(pods, 'v', (p) => [String(p.v)]).asCollection({ ...opts, name: 'index' });
    joinCollection([pods, other], { ...opts, name: 'join' });
    joinWithMergeCollection([pods, other], (vs) => vs[0], { ...opts, name: 'mergeJoin' });
    return 11;
  }

  it('should unregister every kind of collection when its stop signal aborts', () => {
    const debug = new DebugHandler();
    const ac = new AbortController();
    const n = buildAll({ debugger: debug, stop: ac.signal }, true);
    // joinCollection is not required to register itself (krt's never does); every other kind must.
    expect(debug.size).toBeGreaterThanOrEqual(n - 1);
    expect(debug.dump().every((d) => d.state.synced)).toBe(true);
    ac.abort();
    expect(debug.dump()).toEqual([]);
  });

  it('should unregister collections that never synced', () => {
    const debug = new DebugHandler();
    const ac = new AbortController();
    buildAll({ debugger: debug, stop: ac.signal }, false);
    const names = debug
      .dump()
      .filter((d) => !d.state.synced)
      .map((d) => d.name);
    expect(names).toEqual(
      expect.arrayContaining(['pods', 'collection', 'many', 'singleton', 'manyFromNothing', 'map', 'index', 'mergeJoin']),
    );
    ac.abort();
    expect(debug.dump()).toEqual([]);
  });

  it('should not register a collection whose stop signal has already aborted', () => {
    const debug = new DebugHandler();
    const ac = new AbortController();
    ac.abort();
    newStaticCollection<Named>([], { debugger: debug, stop: ac.signal });
    newCollection(newStaticCollection<Named>([]), (_ctx, p) => p, { debugger: debug, stop: ac.signal });
    expect(debug.dump()).toEqual([]);
  });
});
