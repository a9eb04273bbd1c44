import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  batch,
  fetch,
  mapCollection,
  nestedJoinCollection,
  nestedJoinWithMergeCollection,
  newCollection,
  newNamespaceIndex,
  newStaticCollection,
  setLogger,
  type Collection,
  type TransformError,
} from '../../../src/index.js';
import { trackEvents } from '../../../src/testing/index.js';
import { subscribers } from '../../helpers/fixtures.js';

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

/** krt nestedjoinmerge_test's merge: the first value, others fill in missing selector labels, then app=foo. */
function mergeServices(values: SimpleService[]): SimpleService | undefined {
  const selector: Record<string, string> = { ...values[0]!.selector };
  for (const v of values.slice(1)) for (const [k, val] of Object.entries(v.selector)) if (!(k in selector)) selector[k] = val;
  selector.app = 'foo';
  return { ...values[0]!, selector };
}

interface Row {
  metadata: { name: string };
  n: number;
}
const row = (name: string, n: number): Row => ({ metadata: { name }, n });

describe('nestedJoinWithMergeCollection', () => {
  beforeEach(() => setLogger({ warn() {}, error() {} }));
  afterEach(() => setLogger());

  it('should merge across members added and removed at run time (krt TestNestedJoinWithMergeSimpleCollection)', () => {
    const services1 = newStaticCollection<SimpleService>([svc('svc', { app: 'bar' })]);
    const container = newStaticCollection<Collection<SimpleService>>([services1]);
    const joined = nestedJoinWithMergeCollection(container, mergeServices);
    expect(joined.getKey('namespace/svc')?.selector).toEqual({ app: 'foo' });
    const t = trackEvents(joined);
    t.expectOrdered('add/namespace/svc');

    const services2 = newStaticCollection<SimpleService>([svc('svc', { version: 'v1' })]);
    container.updateObject(services2);
    expect(joined.getKey('namespace/svc')?.selector).toEqual({ app: 'foo', version: 'v1' });
    t.expectOrdered('update/namespace/svc');

    container.deleteObject(String(services2.uid));
    expect(joined.getKey('namespace/svc')?.selector).toEqual({ app: 'foo' });
    t.expectOrdered('update/namespace/svc');

    container.deleteObject(String(services1.uid));
    expect(joined.getKey('namespace/svc')).toBeUndefined();
    t.expectOrdered('delete/namespace/svc');

    container.updateObject(services1);
    t.expectOrdered('add/namespace/svc');
    container.updateObject(services2);
    t.expectOrdered('update/namespace/svc');
  });

  it('should feed an index over the merged values (krt TestNestedJoinWithMergeAndIndexSimpleCollection)', () => {
    const services1 = newStaticCollection<SimpleService>([svc('svc', { app: 'foo' }, '1.2.3.4')]);
    const container = newStaticCollection<Collection<SimpleService>>([services1]);
    const joined = nestedJoinWithMergeCollection(container, mergeServices);
    const ips = newCollection(
      newNamespaceIndex(joined).asCollection(),
      (_ctx, group) => ({ namespace: group.key, ips: group.objects.map((s) => s.ip!).sort() }),
      { key: (n: { namespace: string }) => n.namespace },
    );
    const t = trackEvents(ips);
    t.expectOrdered('add/namespace');
    container.updateObject(
      newStaticCollection<SimpleService>([svc('svc', { app: 'foo' }, '9.9.9.9'), svc('svc2', { app: 'foo' }, '1.2.3.5')]),
    );
    expect(ips.getKey('namespace')?.ips).toEqual(['1.2.3.4', '1.2.3.5']);
    t.expectOrdered('update/namespace');
  });

  it("should follow a member's own changes and hand merge the values in the container's order", () => {
    const a = newStaticCollection<Row>([]);
    const b = newStaticCollection<Row>([]);
    const calls: number[][] = [];
    const sum = nestedJoinWithMergeCollection(newStaticCollection<Collection<Row>>([a, b]), (values) => {
      calls.push(values.map((v) => v.n));
      return row(
        values[0]!.metadata.name,
        values.reduce((s, v) => s + v.n, 0),
      );
    });
    b.updateObject(row('k', 2));
    a.updateObject(row('k', 1));
    expect(sum.getKey('k')?.n).toBe(3);
    expect(calls.at(-1)).toEqual([1, 2]);
    b.deleteObject('k');
    expect(sum.getKey('k')?.n).toBe(1);
    a.deleteObject('k');
    expect(sum.getKey('k')).toBeUndefined();
  });

  it('should merge again in the new order when a member leaves and comes back in one transaction', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const b = newStaticCollection<Row>([row('k', 2)]);
    const container = newStaticCollection<Collection<Row>>([a, b]);
    const joined = nestedJoinWithMergeCollection(container, (vs) => row('k', vs[0]!.n * 10 + vs[1]!.n));
    expect(joined.getKey('k')?.n).toBe(12);
    batch(() => {
      container.deleteObject(String(a.uid));
      container.updateObject(a);
    });
    expect(joined.getKey('k')?.n).toBe(21);
  });

  it('should emit one batch for a transaction that adds a member and changes it, computed from committed state', () => {
    const container = newStaticCollection<Collection<Row>>([]);
    const joined = nestedJoinWithMergeCollection(container, (vs) => vs[0]);
    const batches: string[][] = [];
    joined.registerBatch(
      (b) => void batches.push(b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}:${(e.new ?? e.old)!.n}`)),
      false,
    );
    const member = newStaticCollection<Row>([row('x', 1)]);
    batch(() => {
      container.updateObject(member);
      member.updateObject(row('x', 2));
      member.updateObject(row('y', 1));
    });
    expect(batches).toEqual([['add/x:2', 'add/y:1']]);
  });

  it('should rank above a member that ranks above it when added, and still emit once per transaction', () => {
    const rows = newStaticCollection<Row>([row('x', 1)]);
    const container = newStaticCollection<Collection<Row>>([]);
    const joined = nestedJoinWithMergeCollection(container, (vs) => vs[0]);
    // A deep member: a chain of derived collections, built after the join, so it ranks above it.
    let deep: Collection<Row> = rows;
    for (let i = 0; i < 4; i++) deep = newCollection(deep, (_ctx, r) => row(r.metadata.name, r.n + 1));
    const batches: unknown[][] = [];
    joined.registerBatch((b) => void batches.push(b.map((e) => e.new ?? e.old)), false);
    batch(() => {
      container.updateObject(deep);
      rows.updateObject(row('x', 10));
    });
    expect(batches).toEqual([[row('x', 14)]]);
    rows.updateObject(row('x', 20));
    expect(joined.getKey('x')).toEqual(row('x', 24));
  });

  it('should sync once the container and every member have synced', () => {
    const member = newStaticCollection<Row>([row('x', 1)], { synced: false });
    const container = newStaticCollection<Collection<Row>>([member], { synced: false });
    const joined = nestedJoinWithMergeCollection(container, (vs) => vs[0]);
    expect(joined.hasSynced()).toBe(false);
    container.markSynced();
    expect(joined.hasSynced()).toBe(false);
    member.markSynced();
    expect(joined.hasSynced()).toBe(true);
  });

  it('should report a member that is not a collection, or that would close a cycle, and ignore it', () => {
    const errors: TransformError[] = [];
    const container = newStaticCollection<Collection<Row>>([], { key: (c: { name: string }) => c.name });
    const joined = nestedJoinWithMergeCollection(container, (vs) => vs[0], { name: 'Joined' });
    joined.errors$.subscribe((e) => errors.push(e));
    container.updateObject({ name: 'bogus' } as unknown as Collection<Row>);
    const downstream = mapCollection(joined, (r) => r, { name: 'Downstream' });
    container.updateObject(downstream);
    const member = newStaticCollection<Row>([row('ok', 1)], { name: 'Member' });
    container.updateObject(member);
    expect(joined.list()).toEqual([row('ok', 1)]);
    const text = errors.map((e) => e.message).join('\n');
    expect(text).toContain('collection "Joined" key "bogus": member ignored');
    expect(text).toContain('collection "Joined" key "Downstream": member ignored: cycle');
  });

  it('should keep the last value and report a merge that throws or changes the key', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    let mode: 'ok' | 'throw' | 'rekey' = 'ok';
    const joined = nestedJoinWithMergeCollection(newStaticCollection<Collection<Row>>([a]), (vs) => {
      if (mode === 'throw') throw new Error('merge failed');
      return mode === 'rekey' ? row('other', vs[0]!.n) : vs[0];
    });
    const errors: TransformError[] = [];
    joined.errors$.subscribe((e) => errors.push(e));
    mode = 'throw';
    a.updateObject(row('k', 2));
    mode = 'rekey';
    a.updateObject(row('k', 3));
    expect(joined.getKey('k')).toEqual(row('k', 1));
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('merge failed'),
      expect.stringContaining('merge must keep the key'),
    ]);
  });

  it('should stop reading its container and members when stopped', () => {
    const member = newStaticCollection<Row>([row('x', 1)]);
    const container = newStaticCollection<Collection<Row>>([member]);
    const stop = new AbortController();
    const joined = nestedJoinWithMergeCollection(container, (vs) => vs[0], { stop: stop.signal });
    expect(subscribers(member)).toBe(1);
    stop.abort();
    expect(subscribers(member)).toBe(0);
    expect(subscribers(container)).toBe(0);
    member.updateObject(row('x', 2));
    expect(joined.getKey('x')).toEqual(row('x', 1));
  });

  it('should refuse a container that is not a collection and a merge that is not a function', () => {
    expect(() => nestedJoinWithMergeCollection({} as Collection<Collection<Row>>, (vs) => vs[0])).toThrow(/nestedJoinWithMergeCollection/);
    expect(() => nestedJoinWithMergeCollection(newStaticCollection<Collection<Row>>([]), 3 as never)).toThrow(/merge function/);
  });
});

describe('nestedJoinCollection', () => {
  it('should let the member earliest in the container win a shared key, and the next take over', () => {
    const a = newStaticCollection<Row>([row('k', 1)]);
    const b = newStaticCollection<Row>([row('k', 2), row('j', 5)]);
    const container = newStaticCollection<Collection<Row>>([a, b]);
    const joined = nestedJoinCollection(container);
    const t = trackEvents(joined);
    t.expectUnordered('add/k', 'add/j');
    expect(joined.getKey('k')?.n).toBe(1);
    a.deleteObject('k');
    expect(joined.getKey('k')?.n).toBe(2);
    t.expectOrdered('update/k');
    container.deleteObject(String(b.uid));
    t.expectUnordered('delete/k', 'delete/j');
  });

  it('should give each key one writer: readers see one update per transaction however members race', () => {
    const members = [0, 1, 2].map((i) => newStaticCollection<Row>([row('k', i)]));
    const container = newStaticCollection<Collection<Row>>([]);
    const joined = nestedJoinCollection(container);
    let runs = 0;
    const reader = newCollection(joined, (ctx, r) => {
      runs++;
      return { metadata: r.metadata, total: fetch(ctx, joined).length };
    });
    batch(() => {
      for (const m of members) container.updateObject(m);
      members[0]!.deleteObject('k');
    });
    expect(joined.getKey('k')?.n).toBe(1);
    expect(reader.list()).toEqual([{ metadata: { name: 'k' }, total: 1 }]);
    expect(runs).toBe(1);
  });
});
