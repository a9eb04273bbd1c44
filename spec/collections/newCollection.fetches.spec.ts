import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newSingleton,
  fetch,
  filterGeneric,
  filterKey,
  filterLabel,
  partialFetch,
  batch,
  type TransformError,
} from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { captureLog, configMap, NS, pod, simplePods, sizedPods, type ConfigMap, type Pod, type SimplePod } from '../helpers/fixtures.js';
import { staticKey } from './newCollection.fixtures.js';

describe('newCollection fetches', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

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
});
