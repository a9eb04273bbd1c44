import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  batch,
  joinWithMergeCollection,
  newCollection,
  newNamespaceIndex,
  newStaticCollection,
  setLogger,
  TransformError,
  type Collection,
} from '../../../src/index.js';
import { describeEvents, trackEvents } from '../../../src/testing/index.js';

interface SimpleService {
  metadata: { name: string; namespace: string };
  selector: Record<string, string>;
  ip?: string;
}
const svc = (name: string, selector: Record<string, string>, ip?: string): SimpleService => ({
  metadata: { name, namespace: 'namespace' },
  selector,
  ...(ip !== undefined ? { ip } : {}),
});

/** krt mergejoin_test's merge: the first value's identity and selector, others fill in missing labels, then app=foo. */
function mergeServices(values: SimpleService[]): SimpleService | undefined {
  if (values.length === 0) return undefined;
  const selector: Record<string, string> = { ...values[0]!.selector };
  for (const v of values.slice(1)) for (const [k, val] of Object.entries(v.selector)) if (!(k in selector)) selector[k] = val;
  selector.app = 'foo';
  return { ...values[0]!, selector };
}

interface NamespaceIPs {
  namespace: string;
  ips: string[];
}
function namespaceIPs(services: Collection<SimpleService>): Collection<NamespaceIPs> {
  const byNamespace = newNamespaceIndex(services);
  return newCollection(
    byNamespace.asCollection(),
    (_ctx, group) => ({ namespace: group.key, ips: group.objects.map((s) => s.ip!).sort() }),
    {
      key: (n: NamespaceIPs) => n.namespace,
    },
  );
}

interface Row {
  metadata: { name: string };
  n: number;
}
const row = (name: string, n: number): Row => ({ metadata: { name }, n });

describe('joinWithMergeCollection', () => {
  beforeEach(() => setLogger({ warn() {}, error() {} }));
  afterEach(() => setLogger());

  it('should merge the values sharing a key (krt TestJoinWithMergeSimpleCollection)', () => {
    const services1 = newStaticCollection<SimpleService>([svc('svc', { app: 'bar' })]);
    const single = joinWithMergeCollection([services1], mergeServices);
    expect(single.getKey('namespace/svc')?.selector).toEqual({ app: 'foo' });
    trackEvents(single).expectOrdered('add/namespace/svc');

    const services2 = newStaticCollection<SimpleService>([svc('svc', { version: 'v1' })]);
    const merged = joinWithMergeCollection([services1, services2], mergeServices);
    expect(merged.getKey('namespace/svc')?.selector).toEqual({ app: 'foo', version: 'v1' });
    trackEvents(merged).expectOrdered('add/namespace/svc');
  });

  it('should feed an index-as-collection over the merged values (krt TestJoinWithMergeAndIndexSimpleCollection)', () => {
    const services1 = newStaticCollection<SimpleService>([svc('svc', { app: 'foo' }, '1.2.3.4')]);
    const first = namespaceIPs(joinWithMergeCollection([services1], mergeServices));
    expect(first.getKey('namespace')?.ips).toEqual(['1.2.3.4']);

    const services2 = newStaticCollection<SimpleService>([svc('svc', { app: 'foo' }, '9.9.9.9'), svc('svc2', { app: 'foo' }, '1.2.3.5')]);
    const ips = namespaceIPs(joinWithMergeCollection([services1, services2], mergeServices));
    // The duplicate svc merges into services1's value, so its IP is the first collection's.
    expect(ips.getKey('namespace')?.ips).toEqual(['1.2.3.4', '1.2.3.5']);
    const t = trackEvents(ips);
    t.expectOrdered('add/namespace');

    services1.updateObject(svc('svc3', { app: 'foo' }, '1.2.3.6'));
    expect(ips.getKey('namespace')?.ips).toEqual(['1.2.3.4', '1.2.3.5', '1.2.3.6']);
    t.expectOrdered('update/namespace');
  });

  it('should hand merge the values in the order of the collections, whichever of them changed', () => {
    const a = newStaticCollection<Row>([]);
    const b = newStaticCollection<Row>([]);
    const c = newStaticCollection<Row>([]);
    const calls: number[][] = [];
    const sum = joinWithMergeCollection([a, b, c], (values) => {
      calls.push(values.map((v) => v.n));
      return row(
        values[0]!.metadata.name,
        values.reduce((s, v) => s + v.n, 0),
      );
    });
    c.updateObject(row('k', 3));
    a.updateObject(row('k', 1));
    b.updateObject(row('k', 2));
    c.updateObject(row('k', 30));
    expect(calls).toEqual([[3], [1, 3], [1, 2, 3], [1, 2, 30]]);
    expect(sum.getKey('k')?.n).toBe(33);
  });

  it('should emit one delete per deleted key, and an update while another collection still holds it', () => {
    const a = newStaticCollection<Row>([row('k', 1), row('j', 1)]);
    const b = newStaticCollection<Row>([row('k', 2), row('j', 2)]);
    const sum = joinWithMergeCollection([a, b], (values) =>
      row(
        values[0]!.metadata.name,
        values.reduce((s, v) => s + v.n, 0),
      ),
    );
    const batches: string[] = [];
    sum.registerBatch((bt) => {
      batches.push(describeEvents(bt, { sort: true }));
    }, false);
    a.deleteObject('k');
    expect(sum.getKey('k')?.n).toBe(2);
    b.deleteObject('k');
    expect(sum.getKey('k')).toBeUndefined();
    // Both collections drop j in one transaction: still exactly one delete.
    batch(() => {
      a.deleteObject('j');
      b.deleteObject('j');
    });
    expect(batches).toEqual(['update/k', 'delete/k', 'delete/j']);
    expect(sum.list()).toEqual([]);
  });

  it('should leave a key absent while merge returns undefined, and delete it when merge starts doing so', () => {
    const a = newStaticCollection<Row>([]);
    const b = newStaticCollection<Row>([]);
    // Only keys held by both collections survive (an intersection).
    const both = joinWithMergeCollection([a, b], (values) =>
      values.length === 2 ? row(values[0]!.metadata.name, values[0]!.n + values[1]!.n) : undefined,
    );
    const t = trackEvents(both);
    a.updateObject(row('k', 1));
    expect(both.getKey('k')).toBeUndefined();
    expect(both.list()).toEqual([]);
    t.expectEmpty();
    b.updateObject(row('k', 2));
    t.expectOrdered('add/k');
    b.deleteObject('k');
    t.expectOrdered('delete/k');
    expect(both.getKey('k')).toBeUndefined();
  });

  it('should keep the last merged value when merge throws, report it on errors$, and recover', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const merged = joinWithMergeCollection(
      [a],
      (values) => {
        if (values[0]!.n < 0) throw new Error(`negative: ${values[0]!.n}`);
        return values[0];
      },
      { name: 'Merged' },
    );
    const errors: TransformError[] = [];
    merged.errors$.subscribe((e) => errors.push(e));
    const t = trackEvents(merged);
    t.expectOrdered('add/k');
    a.updateObject(row('k', -1));
    t.expectEmpty();
    expect(merged.getKey('k')?.n).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TransformError);
    expect([errors[0]!.collection, errors[0]!.key, (errors[0]!.error as Error).message]).toEqual(['Merged', 'k', 'negative: -1']);
    a.updateObject(row('k', 5));
    t.expectOrdered('update/k');
    expect(merged.getKey('k')?.n).toBe(5);
    // A failing key whose values all disappear is deleted: nothing is left to merge.
    a.updateObject(row('k', -2));
    a.deleteObject('k');
    t.expectOrdered('delete/k');
  });

  it('should emit nothing when the merged value is equal to the last one', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const b = newStaticCollection<Row>([row('k', 1)]);
    const max = joinWithMergeCollection([a, b], (values) => row('k', Math.max(...values.map((v) => v.n))));
    const t = trackEvents(max);
    t.expectOrdered('add/k');
    b.updateObject(row('k', 0));
    a.updateObject(row('k', 1));
    t.expectEmpty();
    b.updateObject(row('k', 4));
    t.expectOrdered('update/k');
  });

  it('should stay unsynced until every collection has synced', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const b = newStaticCollection<Row>([], { synced: false });
    const merged = joinWithMergeCollection([a, b], (values) => values[0]);
    expect(merged.hasSynced()).toBe(false);
    b.markSynced();
    expect(merged.hasSynced()).toBe(true);
  });

  it('should key objects as its first collection does when given no key option', () => {
    interface Item {
      id: string;
      n: number;
    }
    const a = newStaticCollection<Item>([], { key: (i: Item) => i.id });
    const b = newStaticCollection<Item>([], { key: (i: Item) => i.id });
    const merged = joinWithMergeCollection([a, b], (values) => ({ id: values[0]!.id, n: values.reduce((s, v) => s + v.n, 0) }));
    const doubled = newCollection(merged, (_ctx, i) => ({ id: i.id, n: i.n * 2 }), { key: (i: Item) => i.id });
    a.updateObject({ id: 'x', n: 1 });
    b.updateObject({ id: 'x', n: 2 });
    expect(doubled.getKey('x')).toEqual({ id: 'x', n: 6 });
  });

  it('should reject a merged value whose key differs from the key it merges, keeping the last value', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const renamed = joinWithMergeCollection(
      [a],
      (values) => (values[0]!.n > 1 ? row(`${values[0]!.metadata.name}-x`, values[0]!.n) : values[0]),
      {
        name: 'Renamed',
      },
    );
    const errors: TransformError[] = [];
    renamed.errors$.subscribe((e) => errors.push(e));
    const t = trackEvents(renamed);
    t.expectOrdered('add/k');
    a.updateObject(row('k', 2));
    t.expectEmpty();
    expect(renamed.getKey('k')?.n).toBe(1);
    expect(renamed.getKey('k-x')).toBeUndefined();
    expect(errors.map((e) => [e.collection, e.key])).toEqual([['Renamed', 'k']]);
    expect(errors[0]!.message).toContain('"k" became "k-x"');
  });
});
