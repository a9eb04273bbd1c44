import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  batch,
  fetch,
  filterIndex,
  filterKeys,
  filterLabel,
  joinCollection,
  newCollection,
  newIndex,
  namespaceOf,
  newNamespaceIndex,
  unnamedIndex,
  newSingleton,
  newStatic,
  newStaticCollection,
  setLogger,
  TransformError,
  UsageError,
  type Collection,
} from '../../src/index.js';

interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status: { podIP?: string };
}
interface SimplePod {
  metadata: { name: string; namespace: string };
  labels: Record<string, string>;
  ip: string;
}
const pod = (name: string, ip?: string, labels?: Record<string, string>): Pod => ({
  metadata: { name, namespace: 'namespace', ...(labels ? { labels } : {}) },
  status: ip ? { podIP: ip } : {},
});

/** krt's SimplePods: pods that have an IP. */
function simplePods(pods: Collection<Pod>): Collection<SimplePod> {
  return newCollection(pods, (_ctx, p) =>
    p.status.podIP
      ? { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, labels: p.metadata.labels ?? {}, ip: p.status.podIP }
      : undefined,
  );
}
const names = (ps: readonly { metadata: { name: string } }[]): string[] => ps.map((p) => p.metadata.name).sort();

describe('newIndex', () => {
  beforeEach(() => setLogger({ warn() {}, error() {} }));
  afterEach(() => setLogger());

  it('should look objects up by an extracted key as they are added, moved and deleted (krt TestIndex)', () => {
    const pods = newStaticCollection<Pod>([]);
    const byIP = newIndex(simplePods(pods), 'ip', (p) => [p.ip]);
    pods.updateObject(pod('name', '1.2.3.4'));
    expect(names(byIP.lookup('1.2.3.4'))).toEqual(['name']);
    pods.updateObject(pod('name', '1.2.3.5'));
    expect(byIP.lookup('1.2.3.4')).toEqual([]);
    expect(names(byIP.lookup('1.2.3.5'))).toEqual(['name']);
    pods.updateObject(pod('name2', '1.2.3.5'));
    expect(names(byIP.lookup('1.2.3.5'))).toEqual(['name', 'name2']);
    pods.deleteObject('namespace/name');
    pods.deleteObject('namespace/name2');
    expect(byIP.lookup('1.2.3.5')).toEqual([]);
  });

  it('should index what was there before it was built, and file an object under each key it extracts', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1', { app: 'x', tier: 'web' }), pod('b', '2', { app: 'x' })]);
    const byLabel = newIndex(pods, 'labels', (p) => Object.entries(p.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`));
    expect(names(byLabel.lookup('app=x'))).toEqual(['a', 'b']);
    expect(names(byLabel.lookup('tier=web'))).toEqual(['a']);
    expect(byLabel.lookup('tier=db')).toEqual([]);
  });

  it('should let transforms fetch through indexes and recompute when the looked-up groups change (krt TestIndexCollection)', () => {
    const pods = newStaticCollection<Pod>([]);
    const simple = simplePods(pods);
    const byIP = newIndex(simple, 'ip', (p) => [p.ip]);
    const byLabel = newIndex(simple, 'labels', (p) => Object.entries(p.labels).map(([k, v]) => `${k}=${v}`));
    const view = newSingleton((ctx) => ({
      ip2: names(byIP.fetch(ctx, '2.2.2.2')),
      ip3: names(fetch(ctx, simple, filterIndex(byIP, '3.3.3.3'))),
      marked: names(byLabel.fetch(ctx, 'marker=true')),
    }));
    pods.updateObject(pod('name', '1.1.1.1'));
    expect(view.get()).toEqual({ ip2: [], ip3: [], marked: [] });
    pods.updateObject(pod('name', '2.2.2.2'));
    expect(view.get()).toEqual({ ip2: ['name'], ip3: [], marked: [] });
    pods.updateObject(pod('name2', '2.2.2.2'));
    expect(view.get()).toEqual({ ip2: ['name', 'name2'], ip3: [], marked: [] });
    pods.updateObject(pod('name3', '3.3.3.3'));
    expect(view.get()).toEqual({ ip2: ['name', 'name2'], ip3: ['name3'], marked: [] });
    pods.updateObject(pod('name4', '4.4.4.4', { marker: 'true' }));
    expect(view.get()).toEqual({ ip2: ['name', 'name2'], ip3: ['name3'], marked: ['name4'] });
    batch(() => ['name', 'name2', 'name3', 'name4'].forEach((n) => pods.deleteObject(`namespace/${n}`)));
    expect(view.get()).toEqual({ ip2: [], ip3: [], marked: [] });
  });

  it('should recompute only through the index keys and object keys a transform fetched (krt TestReverseIndex)', () => {
    const pods = newStaticCollection<Pod>([]);
    const simple = simplePods(pods);
    const byIP = newIndex(simple, 'ip', (p) => [p.ip]);
    let runs = 0;
    const counts = newSingleton((ctx) => {
      runs++;
      return {
        byIP: byIP.fetch(ctx, '1.2.3.5').length,
        byName: fetch(ctx, simple, filterKeys('namespace/name', 'namespace/name3')).length,
      };
    });
    const seen: string[] = [];
    counts.value$.subscribe((c) => seen.push(`${c?.byIP},${c?.byName}`));
    pods.updateObject(pod('name', '1.2.3.4'));
    pods.updateObject(pod('name2', '1.2.3.5'));
    pods.updateObject(pod('name', '1.2.3.5'));
    pods.updateObject(pod('name3', '1.2.3.6'));
    batch(() => {
      pods.deleteObject('namespace/name');
      pods.deleteObject('namespace/name2');
    });
    expect(seen).toEqual(['0,0', '0,1', '1,1', '2,1', '2,2', '0,1']);
    // A pod that is neither under 1.2.3.5 nor one of the fetched keys recomputes nothing.
    const before = runs;
    pods.updateObject(pod('other', '9.9.9.9'));
    pods.updateObject(pod('other', '9.9.9.8'));
    expect(runs).toBe(before);
    expect(counts.get()).toEqual({ byIP: 0, byName: 1 });
  });

  it('should narrow an index fetch with further filters', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1', { app: 'x' }), pod('b', '1', { app: 'y' }), pod('c', '2', { app: 'x' })]);
    const byIP = newIndex(pods, 'ip', (p) => (p.status.podIP ? [p.status.podIP] : []));
    const xOn1 = newSingleton((ctx) => names(byIP.fetch(ctx, '1', filterLabel({ app: 'x' }))).join(','));
    expect(xOn1.get()).toBe('a');
    pods.updateObject(pod('b', '1', { app: 'x' }));
    expect(xOn1.get()).toBe('a,b');
  });

  it('should index a join by the winning value of each key', () => {
    const high = newStaticCollection<Pod>([]);
    const low = newStaticCollection<Pod>([pod('a', '1.1.1.1')]);
    const byIP = newIndex(joinCollection([high, low]), 'ip', (p) => (p.status.podIP ? [p.status.podIP] : []));
    expect(names(byIP.lookup('1.1.1.1'))).toEqual(['a']);
    high.updateObject(pod('a', '2.2.2.2'));
    expect(byIP.lookup('1.1.1.1')).toEqual([]);
    expect(names(byIP.lookup('2.2.2.2'))).toEqual(['a']);
    high.deleteObject('namespace/a');
    expect(names(byIP.lookup('1.1.1.1'))).toEqual(['a']);
    expect(byIP.lookup('2.2.2.2')).toEqual([]);
  });

  it('should report an extract function that throws and file that object under no key', () => {
    const pods = newStaticCollection<Pod>([], { name: 'Pods' });
    const byIP = newIndex(pods, 'ip', (p) => {
      if (!p.status.podIP) throw new Error('no IP yet');
      return [p.status.podIP];
    });
    const errors: TransformError[] = [];
    pods.errors$.subscribe((e) => errors.push(e));
    pods.updateObject(pod('a'));
    pods.updateObject(pod('b', '1'));
    expect(names(byIP.lookup('1'))).toEqual(['b']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Pods');
    expect(errors[0]!.message).toContain('no IP yet');
  });

  it('should report, as a transform error, a fetch that filters a collection by another collection’s index', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1')]);
    const others = newStaticCollection<Pod>([pod('b', '1')]);
    const byIP = newIndex(others, 'ip', (p) => (p.status.podIP ? [p.status.podIP] : []));
    const mode = newStatic<string>('good');
    const count = newSingleton(
      (ctx) => (fetch(ctx, mode.asCollection())[0] === 'good' ? 1 : fetch(ctx, pods, filterIndex(byIP, '1')).length),
      { name: 'Count' },
    );
    const errors: TransformError[] = [];
    count.asCollection().errors$.subscribe((e) => errors.push(e));
    expect(count.get()).toBe(1);
    mode.set('bad');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Count');
    expect(errors[0]!.error).toBeInstanceOf(UsageError);
    expect(errors[0]!.message).toContain('belongs to collection');
    // The last good value is kept.
    expect(count.get()).toBe(1);
  });
});

describe('newNamespaceIndex', () => {
  class Workload {
    constructor(
      readonly id: string,
      private readonly ns: string | undefined,
    ) {}
    getNamespace(): string | undefined {
      return this.ns;
    }
    resourceName(): string {
      return this.id;
    }
  }

  it('should index by getNamespace() when present', () => {
    const ws = newStaticCollection<Workload>([new Workload('a', 'team-a'), new Workload('b', 'team-b'), new Workload('c', undefined)]);
    const byNs = newNamespaceIndex(ws);
    expect(byNs.lookup('team-a').map((w) => w.id)).toEqual(['a']);
    expect(byNs.lookup('team-b').map((w) => w.id)).toEqual(['b']);
    expect(byNs.lookup('').map((w) => w.id)).toEqual(['c']);
  });

  it('should index by metadata.namespace otherwise, and by the empty string without one', () => {
    const objs = newStaticCollection<{ metadata: { name: string; namespace?: string } }>([
      { metadata: { name: 'a', namespace: 'ns1' } },
      { metadata: { name: 'b', namespace: 'ns2' } },
      { metadata: { name: 'node1' } },
    ]);
    const byNs = newNamespaceIndex(objs);
    expect(names(byNs.lookup('ns1'))).toEqual(['a']);
    expect(names(byNs.lookup('ns2'))).toEqual(['b']);
    expect(names(byNs.lookup(''))).toEqual(['node1']);
    objs.updateObject({ metadata: { name: 'c', namespace: 'ns1' } });
    expect(names(byNs.lookup('ns1'))).toEqual(['a', 'c']);
  });

  it('should file plain strings and objects without metadata under the empty string', () => {
    const strs = newStaticCollection<string>(['x', 'y']);
    expect(newNamespaceIndex(strs).lookup('').sort()).toEqual(['x', 'y']);
  });
});

describe('namespaceOf', () => {
  it('should read getNamespace(), else metadata.namespace, else the empty string', () => {
    expect(namespaceOf({ getNamespace: () => 'from-method', metadata: { namespace: 'from-metadata' } })).toBe('from-method');
    expect(namespaceOf({ metadata: { name: 'a', namespace: 'ns' } })).toBe('ns');
    expect(namespaceOf({ metadata: { name: 'a' } })).toBe('');
    expect(namespaceOf('ns/a')).toBe('');
    expect(namespaceOf(null)).toBe('');
  });
});

describe('newIndex identity', () => {
  it('should return the existing index for a name already used on the collection, whatever the extract function', () => {
    const c = newStaticCollection<{ metadata: { name: string }; ip: string }>([{ metadata: { name: 'a' }, ip: '1' }]);
    const first = newIndex(c, 'ip', (o) => [o.ip]);
    for (let i = 0; i < 50; i++) newIndex(c, 'ip', (o) => [o.ip]);
    const again = newIndex(c, 'ip', () => ['other']);
    expect(again.handle).toBe(first.handle);
    expect(again.lookup('1').map((o) => o.metadata.name)).toEqual(['a']);
    expect(newIndex(c, 'other-name', (o) => [o.ip]).handle).not.toBe(first.handle);
  });

  it('should share an unnamed index between calls with the same extract function, and only then', () => {
    const c = newStaticCollection<Pod>([pod('a', '1'), pod('b', '2')]);
    const byIP = (p: Pod): readonly string[] => (p.status.podIP ? [p.status.podIP] : []);
    const first = unnamedIndex(c, byIP);
    expect(unnamedIndex(c, byIP).handle).toBe(first.handle);
    expect(first.lookup('2').map((o) => o.metadata.name)).toEqual(['b']);
    expect(unnamedIndex(c, (p: Pod) => byIP(p)).handle).not.toBe(first.handle);
    expect(() => unnamedIndex(c, undefined as never)).toThrow(/extract function/);
  });
});
