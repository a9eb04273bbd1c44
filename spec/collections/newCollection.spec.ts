import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newStatic,
  newCollection,
  newSingleton,
  fetch,
  filterGeneric,
  filterKey,
  filterLabel,
  partialFetch,
  batch,
  type Collection,
  type Event,
  type TransformError,
} from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import {
  captureLog,
  configMap,
  keysOf,
  NS,
  pod,
  service,
  simpleEndpoints,
  simplePods,
  simpleServices,
  sizedPods,
  synced,
  type ConfigMap,
  type Pod,
  type Service,
  type SimplePod,
} from '../helpers/fixtures.js';

interface LocalPod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  ip?: string;
}
const localPod = (name: string, ip?: string, labels?: Record<string, string>): LocalPod => ({
  metadata: { name, namespace: 'ns', labels },
  ip,
});

/** Singletons whose value is a plain record live under the key `static` (as krt's test objects do). */
const staticKey = (): string => 'static';

describe('newCollection', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should derive outputs and follow changes', () => {
    const pods = newStaticCollection<LocalPod>([]);
    const ips = newCollection(pods, (_ctx, p) => (p.ip ? { metadata: p.metadata, ip: p.ip } : undefined));
    const t = trackEvents(ips);
    expect(ips.hasSynced()).toBe(true);
    pods.updateObject(localPod('a'));
    t.expectEmpty();
    pods.updateObject(localPod('a', '1.1.1.1'));
    t.expectOrdered('add/ns/a');
    pods.updateObject(localPod('a', '1.1.1.2'));
    t.expectOrdered('update/ns/a');
    pods.updateObject(localPod('a', '1.1.1.2'));
    t.expectEmpty();
    pods.deleteObject('ns/a');
    t.expectOrdered('delete/ns/a');
  });

  it('should recompute on fetched changes', () => {
    const pods = newStaticCollection<LocalPod>([]);
    const svcs = newStaticCollection<{ metadata: { name: string; namespace: string }; sel: Record<string, string> }>([]);
    const eps = newCollection(svcs, (ctx, s) => ({
      metadata: s.metadata,
      pods: fetch(ctx, pods, filterLabel(s.sel))
        .map((p) => p.metadata.name)
        .sort(),
    }));
    const t = trackEvents(eps);
    svcs.updateObject({ metadata: { name: 's', namespace: 'ns' }, sel: { app: 'x' } });
    t.expectOrdered('add/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual([]);
    batch(() => {
      pods.updateObject(localPod('a', '1', { app: 'x' }));
      pods.updateObject(localPod('b', '1', { app: 'x' }));
      pods.updateObject(localPod('c', '1', { app: 'y' }));
    });
    t.expectOrdered('update/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual(['a', 'b']);
    pods.updateObject(localPod('c', '2', { app: 'y' }));
    t.expectEmpty();
    pods.updateObject(localPod('a', '1', { app: 'z' }));
    t.expectOrdered('update/ns/s');
    expect(eps.getKey('ns/s')?.pods).toEqual(['b']);
  });

  it('should follow a pod through IP changes and deletion (TestCollectionSimple)', () => {
    const pods = newStaticCollection<Pod>([]);
    const sp = simplePods(pods);
    pods.updateObject(pod('name'));
    expect(sp.list()).toEqual([]);
    pods.updateObject(pod('name', '1.2.3.4'));
    expect(sp.list()).toEqual([{ metadata: { name: 'name', namespace: NS, labels: {} }, ip: '1.2.3.4' }]);
    pods.updateObject(pod('name', '1.2.3.5'));
    expect(sp.list().map((p) => p.ip)).toEqual(['1.2.3.5']);
    const t = trackEvents(sp);
    t.expectOrdered('add/namespace/name');
    pods.deleteObject('namespace/name');
    expect(sp.list()).toEqual([]);
    t.expectOrdered('delete/namespace/name');
  });

  it('should be complete the moment it syncs, through every fetched collection (TestCollectionInitialState)', async () => {
    const pods = newStaticCollection<Pod>([pod('pod', '1.2.3.4', { app: 'foo' })], { synced: false });
    const services = newStaticCollection<Service>([service('svc', { app: 'foo' })], { synced: false });
    const eps = simpleEndpoints(simpleServices(services), simplePods(pods));
    expect(eps.hasSynced()).toBe(false);
    services.markSynced();
    // The transform fetched the (unsynced) pods: not synced yet.
    expect(eps.hasSynced()).toBe(false);
    const waiting = eps.waitUntilSynced();
    pods.markSynced();
    expect(await waiting).toBe(true);
    expect(eps.list()).toEqual([{ metadata: { name: 'svc/pod', namespace: NS }, pod: 'pod', service: 'svc', ip: '1.2.3.4' }]);
  });

  it('should call a handler before its registration syncs (TestCollectionHandlerSync)', async () => {
    const pods = newStaticCollection<Pod>([], { synced: false });
    const sp = simplePods(pods);
    let calls = 0;
    let syncedInside: boolean | undefined;
    const reg = sp.register(() => {
      calls++;
      syncedInside = reg.hasSynced();
    });
    batch(() => {
      pods.updateObject(pod('name', '1.2.3.4'));
      pods.markSynced();
    });
    expect(await reg.waitUntilSynced()).toBe(true);
    expect(calls).toBe(1);
    expect(syncedInside).toBe(false);
  });

  it('should merge pods and services into endpoints (TestCollectionMerged)', () => {
    const pods = newStaticCollection<Pod>([]);
    const services = newStaticCollection<Service>([]);
    const eps = simpleEndpoints(simpleServices(services), simplePods(pods));
    pods.updateObject(pod('name', undefined, { app: 'foo' }));
    expect(eps.list()).toEqual([]);
    services.updateObject(service('svc', { app: 'foo' }));
    expect(eps.list()).toEqual([]);
    pods.updateObject(pod('name', '1.2.3.4', { app: 'foo' }));
    expect(eps.list()).toEqual([{ metadata: { name: 'svc/name', namespace: NS }, pod: 'name', service: 'svc', ip: '1.2.3.4' }]);
    pods.updateObject(pod('name', '1.2.3.5', { app: 'foo' }));
    expect(eps.list().map((e) => e.ip)).toEqual(['1.2.3.5']);
    pods.deleteObject('namespace/name');
    expect(eps.list()).toEqual([]);
    pods.updateObject(pod('name', '1.2.3.4', { app: 'foo' }));
    pods.updateObject(pod('name2', '1.2.3.5', { app: 'foo' }));
    expect(keysOf(eps)).toEqual(['namespace/svc/name', 'namespace/svc/name2']);
  });

  it('should batch the recomputations of one transaction into one batch (TestCollectionCycle)', () => {
    const pods = newStaticCollection<Pod>([]);
    const sp = simplePods(pods);
    const sized = sizedPods(pods);
    const thingys = newCollection(
      sp,
      (ctx, p: SimplePod) => {
        const want = p.metadata.labels['want-size'] as string | undefined;
        if (want === undefined) return undefined;
        const matches = fetch(
          ctx,
          sized,
          filterGeneric((s: { size: string }) => s.size === want),
        );
        return { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, count: matches.length };
      },
      { name: 'Thingys' },
    );
    const t = trackEvents(thingys, { batches: true });
    const count = (name: string): number | undefined => thingys.getKey(`namespace/${name}`)?.count;
    /** The batches since the last call, each as a sorted comma-joined list. */
    const batches = (): string[] => t.takeBatches().map((b) => b.split(',').sort().join(','));

    pods.updateObject(pod('name', '1.2.3.4', { 'want-size': 'large' }));
    expect(batches()).toEqual(['add/namespace/name']);
    expect(count('name')).toBe(0);

    pods.updateObject(pod('name-large', '1.2.3.5', { size: 'large' }));
    expect(batches()).toEqual(['update/namespace/name']);
    expect(count('name')).toBe(1);

    pods.updateObject(pod('name-small', '1.2.3.6', { size: 'small' }));
    pods.updateObject(pod('name-large', '1.2.3.5', { size: 'large' }));
    expect(batches()).toEqual([]);
    expect(count('name')).toBe(1);

    pods.updateObject(pod('name-large2', '1.2.3.7', { size: 'large' }));
    expect(batches()).toEqual(['update/namespace/name']);
    expect(count('name')).toBe(2);

    // krt delivers these two as two batches (two queue tasks); rxkrt commits one transaction, so one batch.
    pods.updateObject(pod('name-dual', '1.2.3.8', { size: 'large', 'want-size': 'small' }));
    expect(batches()).toEqual(['add/namespace/name-dual,update/namespace/name']);
    expect(count('name')).toBe(3);
    expect(count('name-dual')).toBe(1);

    pods.updateObject(pod('name-large2', '1.2.3.7', { size: 'small' }));
    expect(batches()).toEqual(['update/namespace/name,update/namespace/name-dual']);
    expect(count('name')).toBe(2);
    expect(count('name-dual')).toBe(2);

    pods.deleteObject('namespace/name-dual');
    expect(batches()).toEqual(['delete/namespace/name-dual,update/namespace/name']);
    expect(count('name')).toBe(1);

    pods.deleteObject('namespace/name-large');
    expect(batches()).toEqual(['update/namespace/name']);
    expect(count('name')).toBe(0);

    pods.deleteObject('namespace/name');
    expect(batches()).toEqual(['delete/namespace/name']);
    expect(thingys.list()).toEqual([]);
  });

  it('should track two fetches of one collection with different filters (TestCollectionMultipleFetch)', () => {
    const cms = newStaticCollection<ConfigMap>([]);
    const src = newStaticCollection<string>(['input']);
    const out = newCollection(src, (ctx, k) => ({
      metadata: { name: k },
      names: [...fetch(ctx, cms, filterLabel({ app: 'foo' })), ...fetch(ctx, cms, filterLabel({ app: 'bar' }))]
        .map((c) => c.metadata.name)
        .sort(),
    }));
    const names = (): string[] => out.getKey('input')!.names;
    expect(names()).toEqual([]);
    cms.updateObject(configMap('foo1', { app: 'foo' }));
    expect(names()).toEqual(['foo1']);
    cms.updateObject(configMap('bar1', { app: 'bar' }));
    expect(names()).toEqual(['bar1', 'foo1']);
    cms.updateObject(configMap('foo2', { app: 'foo' }));
    expect(names()).toEqual(['bar1', 'foo1', 'foo2']);
    cms.updateObject(configMap('foo2', { app: 'bar' }));
    expect(names()).toEqual(['bar1', 'foo1', 'foo2']);
    cms.updateObject(configMap('foo2', {}));
    expect(names()).toEqual(['bar1', 'foo1']);
    cms.deleteObject('namespace/foo1');
    expect(names()).toEqual(['bar1']);
    cms.deleteObject('namespace/bar1');
    expect(names()).toEqual([]);
  });

  it('should not narrow a key fetch when the same collection is also fetched whole (TestCollectionMultipleFetchAllAndKey)', () => {
    const pods = newStaticCollection<Pod>([pod('name1', '1.1.1.1'), pod('name2', '2.2.2.2')]);
    const sp = simplePods(pods);
    const count = newSingleton((ctx) => {
      fetch(ctx, sp, filterKey('namespace/name1'));
      return String(fetch(ctx, sp).filter((p) => p.ip.startsWith('1')).length);
    });
    expect(count.get()).toBe('1');
    pods.updateObject(pod('name2', '1.2.2.2'));
    expect(count.get()).toBe('2');
  });

  it('should not rerun a partialFetch reader for an update whose projection is equal (TestCollectionFetchWithSuppressChange)', () => {
    interface Named {
      metadata: { name: string; namespace: string };
      ip: string;
    }
    const named = (name: string, ip: string): Named => ({ metadata: { name, namespace: NS }, ip });
    const src = newStaticCollection<Named>([]);
    let runs = 0;
    const max = newSingleton((ctx) => {
      runs++;
      const keys = partialFetch(ctx, src, (a) => `${a.metadata.namespace}/${a.metadata.name}`).sort();
      return keys.length === 0 ? undefined : { max: keys[keys.length - 1]! };
    });
    const t = trackEvents(max.asCollection(), { key: staticKey });
    expect(runs).toBe(1);
    src.updateObject(named('n1', '1.1.1.1'));
    expect(max.get()).toEqual({ max: 'namespace/n1' });
    expect(runs).toBe(2);
    src.updateObject(named('n1', '2.2.2.2'));
    expect(max.get()).toEqual({ max: 'namespace/n1' });
    expect(runs).toBe(2);
    src.reset([named('n2', '1.1.1.1')]);
    expect(max.get()).toEqual({ max: 'namespace/n2' });
    expect(runs).toBe(3);
    t.expectOrdered('add/static', 'update/static');
  });

  it('should follow several key fetches (TestCollectionMultipleFetchKeys)', () => {
    const pods = newStaticCollection<Pod>([]);
    const sp = simplePods(pods);
    const s = newSingleton((ctx) =>
      [...fetch(ctx, sp, filterKey('namespace/name1')), ...fetch(ctx, sp, filterKey('namespace/name2'))]
        .map((p) => `${p.metadata.name}/${p.ip}`)
        .sort()
        .join(','),
    );
    expect(s.get()).toBe('');
    pods.updateObject(pod('name1', '1.1.1.1'));
    expect(s.get()).toBe('name1/1.1.1.1');
    pods.updateObject(pod('name2', '2.2.2.2'));
    expect(s.get()).toBe('name1/1.1.1.1,name2/2.2.2.2');
    pods.updateObject(pod('name2', '3.3.3.3'));
    expect(s.get()).toBe('name1/1.1.1.1,name2/3.3.3.3');
    pods.updateObject(pod('name1', '4.4.4.4'));
    expect(s.get()).toBe('name1/4.4.4.4,name2/3.3.3.3');
    pods.updateObject(pod('other', '5.5.5.5'));
    expect(s.get()).toBe('name1/4.4.4.4,name2/3.3.3.3');
    pods.deleteObject('namespace/name1');
    expect(s.get()).toBe('name2/3.3.3.3');
    pods.deleteObject('namespace/name2');
    expect(s.get()).toBe('');
  });

  describe('discardResult (TestCollectionDiscardResult)', () => {
    it('should keep the first non-empty result as a default', async () => {
      const s = newSingleton((ctx) => {
        ctx.discardResult();
        return { v: 'initial' };
      });
      expect(await s.waitUntilSynced()).toBe(true);
      expect(s.get()).toEqual({ v: 'initial' });
    });

    it('should have no value when the first run discards an empty result', async () => {
      const s = newSingleton<{ v: string }>((ctx) => {
        ctx.discardResult();
        return undefined;
      });
      expect(await s.waitUntilSynced()).toBe(true);
      expect(s.get()).toBeUndefined();
    });

    it('should keep the last good value while discarding, and take the next good one', () => {
      const state = newStatic<string>('initial');
      const s = newSingleton((ctx) => {
        const v = fetch(ctx, state.asCollection())[0];
        if (v === 'skip') ctx.discardResult();
        return { v };
      });
      const t = trackEvents(s.asCollection(), { key: staticKey });
      expect(s.get()).toEqual({ v: 'initial' });
      state.set('skip');
      expect(s.get()).toEqual({ v: 'initial' });
      state.set('final');
      expect(s.get()).toEqual({ v: 'final' });
      t.expectOrdered('add/static', 'update/static');
    });

    it("should keep an input's last outputs in a keyed collection too", () => {
      const src = newStaticCollection<{ metadata: { name: string }; v: number }>([{ metadata: { name: 'a' }, v: 1 }]);
      const out = newCollection(src, (ctx, i) => {
        if (i.v < 0) ctx.discardResult();
        return { metadata: { name: i.metadata.name }, v: i.v };
      });
      src.updateObject({ metadata: { name: 'a' }, v: -1 });
      expect(out.getKey('a')).toEqual({ metadata: { name: 'a' }, v: 1 });
      src.updateObject({ metadata: { name: 'a' }, v: 2 });
      expect(out.getKey('a')).toEqual({ metadata: { name: 'a' }, v: 2 });
    });
  });

  it('should hand out its metadata (TestCollectionMetadata)', () => {
    const m = { foo: 'bar' };
    const c = newCollection(newStaticCollection<string>([]), (_ctx, s) => s, { metadata: m });
    expect(c.metadata()).toEqual(m);
    expect(newCollection(newStaticCollection<string>([]), (_ctx, s) => s).metadata()).toEqual({});
  });

  it('should recompute its inputs when the parent it also fetches changes', () => {
    const src = newStaticCollection<string>(['a']);
    const sizes = newCollection(src, (ctx, s) => ({ metadata: { name: s }, n: fetch(ctx, src).length }));
    expect(sizes.getKey('a')?.n).toBe(1);
    src.updateObject('b');
    expect(sizes.getKey('a')?.n).toBe(2);
    expect(sizes.getKey('b')?.n).toBe(2);
    src.deleteObject('a');
    expect(sizes.getKey('b')?.n).toBe(1);
  });

  it('should keep following its parent after no input fetches the parent any more', () => {
    const src = newStaticCollection<{ metadata: { name: string }; fetches: boolean }>([{ metadata: { name: 'a' }, fetches: true }]);
    const out = newCollection(src, (ctx, i) => ({ metadata: { name: i.metadata.name }, n: i.fetches ? fetch(ctx, src).length : -1 }));
    src.updateObject({ metadata: { name: 'a' }, fetches: false });
    expect(out.getKey('a')?.n).toBe(-1);
    src.updateObject({ metadata: { name: 'b' }, fetches: false });
    expect(out.getKey('b')?.n).toBe(-1);
    src.deleteObject('a');
    expect(out.getKey('a')).toBeUndefined();
  });

  it('should emit an update when an output key passes from one input to another in one transaction', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<{ metadata: { name: string }; owns: boolean; v: number }>([
      { metadata: { name: 'a' }, owns: true, v: 1 },
      { metadata: { name: 'b' }, owns: false, v: 2 },
    ]);
    const out = newCollection(src, (_ctx, i) => (i.owns ? { metadata: { name: 'shared' }, v: i.v } : undefined));
    out.errors$.subscribe((e) => errors.push(e));
    const seen: Array<readonly Event<{ v: number }>[]> = [];
    out.registerBatch((b) => void seen.push(b), false);
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const owner = out.getKey('shared')!.v === 1 ? 'a' : 'b';
      const other = owner === 'a' ? 'b' : 'a';
      batch(() => {
        for (const k of order) {
          const v = k === 'a' ? 1 : 2;
          src.updateObject({ metadata: { name: k }, owns: k === other, v });
        }
      });
    }
    expect(seen.map((b) => b.map((e) => `${e.type}:${e.old?.v}>${e.new?.v}`))).toEqual([['update:1>2'], ['update:2>1']]);
    // No conflict remained once the transaction was over: nothing to report.
    expect(errors).toEqual([]);
  });

  it('should emit one batch per transaction when a transform starts reading a collection ranked above it', () => {
    interface V {
      metadata: { name: string };
      v: number;
      reads?: boolean;
    }
    const s1 = newStaticCollection<V>([{ metadata: { name: 'x' }, v: 0 }]);
    const s2 = newStaticCollection<V>([{ metadata: { name: 'y' }, v: 1 }]);
    const d1 = newCollection(s2, (_c, y) => ({ metadata: y.metadata, v: y.v }));
    const d2 = newCollection(d1, (_c, y) => ({ metadata: y.metadata, v: y.v }));
    // x is ranked 1, d2 is ranked 2: when x starts fetching d2, d2 has not flushed yet in this transaction.
    const x = newCollection(s1, (ctx, i) => ({ metadata: i.metadata, v: i.reads === true ? fetch(ctx, d2)[0]!.v : -1 }));
    const downstream = newCollection(x, (_c, i) => ({ metadata: i.metadata, v: i.v * 10 }));
    const seenX: string[][] = [];
    const seenDown: string[][] = [];
    x.registerBatch((b) => void seenX.push(b.map((e) => `${e.type}:${e.old?.v}>${e.new?.v}`)), false);
    downstream.registerBatch((b) => void seenDown.push(b.map((e) => `${e.type}:${e.old?.v}>${e.new?.v}`)), false);
    batch(() => {
      s1.updateObject({ metadata: { name: 'x' }, v: 0, reads: true });
      s2.updateObject({ metadata: { name: 'y' }, v: 2 });
    });
    expect(seenX).toEqual([['update:-1>2']]);
    expect(seenDown).toEqual([['update:-10>20']]);
    s2.updateObject({ metadata: { name: 'y' }, v: 3 });
    expect(seenX).toEqual([['update:-1>2'], ['update:2>3']]);
  });

  it('should rerun an input whose transform caught the stale read itself, and never hand out what that run returned', () => {
    interface V {
      metadata: { name: string };
      v: number;
      reads?: boolean;
    }
    const s1 = newStaticCollection<V>([
      { metadata: { name: 'x1' }, v: 0 },
      { metadata: { name: 'x2' }, v: 0 },
    ]);
    const s2 = newStaticCollection<V>([{ metadata: { name: 'y' }, v: 1 }]);
    const d1 = newCollection(s2, (_c, y) => ({ metadata: y.metadata, v: y.v }));
    const d2 = newCollection(d1, (_c, y) => ({ metadata: y.metadata, v: y.v }));
    let caught = 0;
    // A transform that swallows every error of its fetch, as user code with a broad try/catch does. Its first
    // read of d2 (ranked above it) happens mid-transaction, before d2 has committed.
    const x = newCollection(s1, (ctx, i) => {
      if (i.reads !== true) return { metadata: i.metadata, v: -1 };
      try {
        return { metadata: i.metadata, v: fetch(ctx, d2)[0]!.v };
      } catch {
        caught++;
        return { metadata: i.metadata, v: -99 };
      }
    });
    const seen: string[][] = [];
    x.registerBatch((b) => void seen.push(b.map((e) => `${e.new?.metadata.name}:${e.old?.v}>${e.new?.v}`).sort()), false);
    const errors: TransformError[] = [];
    x.errors$.subscribe((e) => void errors.push(e));
    // Two inputs in one flush: their results wait to be settled together, so the caught read is found there.
    // d2 changes nothing in this transaction, so no batch of its would rerun them: only the engine's own
    // retry of a run that read too early does.
    batch(() => {
      s1.updateObject({ metadata: { name: 'x1' }, v: 0, reads: true });
      s1.updateObject({ metadata: { name: 'x2' }, v: 0, reads: true });
    });
    expect(caught).toBeGreaterThan(0);
    expect(seen).toEqual([['x1:-1>1', 'x2:-1>1']]);
    expect(x.list().map((o) => o.v)).toEqual([1, 1]);
    expect(errors).toEqual([]);
    // The dependency recorded by the rerun holds.
    s2.updateObject({ metadata: { name: 'y' }, v: 3 });
    expect(seen[1]).toEqual(['x1:1>3', 'x2:1>3']);
  });

  it('should key and compare its outputs with the key and equals options', () => {
    const src = newStaticCollection<{ metadata: { name: string }; v: number; note: string }>([]);
    const out = newCollection(src, (_ctx, i) => ({ id: i.metadata.name.toUpperCase(), v: i.v, note: i.note }), {
      key: (o) => o.id,
      equals: (a, b) => a.v === b.v,
    });
    const seen: string[] = [];
    out.register((e) => void seen.push(`${e.type}:${(e.new ?? e.old)!.id}:${e.new?.note ?? ''}`));
    src.updateObject({ metadata: { name: 'a' }, v: 1, note: 'first' });
    expect(out.getKey('A')?.note).toBe('first');
    // Equal by the equals option: no event, and the stored output stays.
    src.updateObject({ metadata: { name: 'a' }, v: 1, note: 'second' });
    expect(out.getKey('A')?.note).toBe('first');
    src.updateObject({ metadata: { name: 'a' }, v: 2, note: 'third' });
    expect(seen).toEqual(['add:A:first', 'update:A:third']);
  });

  it('should key an output named like its input by its own key function when either collection has a key option', () => {
    type Named = { metadata: { name: string; namespace: string }; id: string };
    const named = (name: string, id: string): Named => ({ metadata: { name, namespace: 'ns' }, id });
    // The parent keys by id: an output with its input's metadata is still keyed ns/name by default.
    const byId = newStaticCollection<Named>([named('a', '#1')], { key: (o: Named) => o.id });
    const copied = newCollection(byId, (_ctx, o) => ({ metadata: o.metadata, id: o.id }));
    expect([byId.getKey('#1')?.id, copied.getKey('ns/a')?.id, copied.getKey('#1')]).toEqual(['#1', '#1', undefined]);
    byId.updateObject(named('a', '#1'));
    expect(copied.list().map((o) => o.id)).toEqual(['#1']);
    // The child keys by id: the input's key says nothing about the output's.
    const plain = newStaticCollection<Named>([named('b', '#2')]);
    const rekeyed = newCollection(plain, (_ctx, o) => ({ metadata: o.metadata, id: `${o.id}!` }), { key: (o: Named) => o.id });
    expect([rekeyed.getKey('#2!')?.id, rekeyed.getKey('ns/b')]).toEqual(['#2!', undefined]);
    plain.updateObject(named('b', '#3'));
    expect(rekeyed.list().map((o) => o.id)).toEqual(['#3!']);
    // Both default: an output with another name is keyed by that name, not its input's key.
    const renamed = newCollection(plain, (_ctx, o) => ({
      metadata: { name: `${o.metadata.name}-x`, namespace: o.metadata.namespace },
      id: o.id,
    }));
    expect(renamed.getKey('ns/b-x')?.id).toBe('#3');
    expect(renamed.getKey('ns/b')).toBeUndefined();
  });

  it('should resolve waitUntilSynced false when the signal aborts first', async () => {
    const src = newStaticCollection<string>([], { synced: false });
    const c = newCollection(src, (_ctx, s) => s);
    const ac = new AbortController();
    const waiting = c.waitUntilSynced(ac.signal);
    ac.abort();
    expect(await waiting).toBe(false);
    src.markSynced();
    expect(await c.waitUntilSynced()).toBe(true);
  });

  it('should be live from construction, with no start call', () => {
    const src = newStaticCollection<string>(['a', 'b']);
    const c: Collection<string> = newCollection(src, (_ctx, s) => s.toUpperCase());
    expect(c.list().sort()).toEqual(['A', 'B']);
    expect(c.hasSynced()).toBe(true);
  });

  it('should keep the visible output when a rerun produces an equal one, and neither freeze nor keep the new one', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a', '1.1.1.1')]);
    const made: Array<{ metadata: { name: string }; ip?: string }> = [];
    const ips = newCollection(pods, (_ctx, p) => {
      const o = { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip: p.ip };
      made.push(o);
      return o;
    });
    const seen: Event<{ ip?: string }>[] = [];
    ips.register((e) => void seen.push(e));
    const first = ips.getKey('ns/a')!;
    expect(first).toBe(made[0]);
    pods.updateObject(localPod('a', '1.1.1.1', { tier: 'web' }));
    expect(made).toHaveLength(2);
    expect(ips.getKey('ns/a')).toBe(first);
    expect(Object.isFrozen(made[1])).toBe(false);
    pods.updateObject(localPod('a', '1.1.1.2'));
    expect(ips.getKey('ns/a')).toBe(made[2]);
    expect(Object.isFrozen(made[2])).toBe(true);
    expect(seen.map((e) => e.type)).toEqual(['add', 'update']);
    expect(seen[1]!.old).toBe(first);
  });

  it('should freeze an output that becomes visible when the input holding its key lets it go', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a'), localPod('b')]);
    const shared = newCollection(pods, (_ctx, p) => ({ metadata: { name: 'shared', namespace: 'ns' }, from: p.metadata.name }));
    expect(shared.getKey('ns/shared')?.from).toBe('a');
    pods.deleteObject('ns/a');
    const heir = shared.getKey('ns/shared')!;
    expect(heir.from).toBe('b');
    expect(Object.isFrozen(heir)).toBe(true);
    expect(log.lines.some((l) => l.includes('already produced by input'))).toBe(true);
  });

  it('should hand out the new output, frozen, when its equals throws, and report the throw once', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a', '1')]);
    let calls = 0;
    const ips = newCollection(pods, (_ctx, p) => ({ metadata: p.metadata, ip: p.ip }), {
      name: 'ThrowingEquals',
      // Throws the first time only: strict mode compares every emitted update again.
      equals: (x: { ip?: string }, y: { ip?: string }) => {
        if (calls++ === 0) throw new Error('cannot compare');
        return x.ip === y.ip;
      },
    });
    const errors: TransformError[] = [];
    ips.errors$.subscribe((e) => errors.push(e));
    pods.updateObject(localPod('a', '2'));
    const o = ips.getKey('ns/a')!;
    expect(o.ip).toBe('2');
    expect(Object.isFrozen(o)).toBe(true);
    expect(errors.map((e) => e.message)).toEqual(['collection "ThrowingEquals": equals threw comparing output "ns/a": cannot compare']);
  });

  it('should freeze its outputs', () => {
    const src = newStaticCollection<string>(['a']);
    const c = newCollection(src, (_ctx, s) => ({ metadata: { name: s }, tags: [s] }));
    const o = c.getKey('a')!;
    expect(Object.isFrozen(o)).toBe(true);
    expect(() => {
      (o as { metadata: { name: string } }).metadata = { name: 'b' };
    }).toThrow();
  });

  it('should not sync before a collection its transforms fetched syncs', async () => {
    const src = newStaticCollection<string>(['a']);
    const late = newStaticCollection<string>([], { synced: false });
    const c = newCollection(src, (ctx, s) => `${s}:${fetch(ctx, late).length}`);
    expect(c.hasSynced()).toBe(false);
    late.updateObject('x');
    expect(c.list()).toEqual(['a:1']);
    late.markSynced();
    await synced(c);
  });
});
