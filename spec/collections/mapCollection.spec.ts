import { messageOf } from '../helpers/fixtures.js';
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { batch, KeyError, mapCollection, newIndex, newStaticCollection, setLogger, TransformError } from '../../src/index.js';
import { trackEvents } from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status: { podIP?: string; phase?: string };
}
interface PodView {
  metadata: { name: string; namespace: string };
  ip: string;
}
const pod = (ns: string, name: string, ip = '', phase = 'Running'): Pod => ({
  metadata: { name, namespace: ns },
  status: { podIP: ip, phase },
});
const view = (p: Pod): PodView => ({ metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip: p.status.podIP ?? '' });

describe('mapCollection', () => {
  const logged: string[] = [];
  beforeEach(() => {
    logged.length = 0;
    setLogger({ warn: (a, b?: string) => logged.push(messageOf(a, b)), error: (a, b?: string) => logged.push(messageOf(a, b)) });
  });
  afterEach(() => setLogger());

  it('should deliver the mapped events to a handler (krt TestMapCollection)', () => {
    const pods = newStaticCollection<Pod>([]);
    const views = mapCollection(pods, view);
    const t = trackEvents(views);
    pods.updateObject(pod('ns1', 'pod1', '1.1.1.1'));
    t.expectOrdered('add/ns1/pod1');
    expect(views.getKey('ns1/pod1')).toEqual({ metadata: { name: 'pod1', namespace: 'ns1' }, ip: '1.1.1.1' });
    pods.updateObject(pod('ns1', 'pod1', '1.1.1.2'));
    t.expectOrdered('update/ns1/pod1');
    pods.deleteObject('ns1/pod1');
    t.expectOrdered('delete/ns1/pod1');
    expect(views.list()).toEqual([]);
  });

  it('should keep the current value when an input maps to an equal one, leaving the new one unfrozen', () => {
    const pods = newStaticCollection<Pod>([pod('ns1', 'pod1', '1.1.1.1')]);
    const made: PodView[] = [];
    const views = mapCollection(pods, (p: Pod) => {
      const v = view(p);
      made.push(v);
      return v;
    });
    const t = trackEvents(views);
    t.expectOrdered('add/ns1/pod1');
    const first = views.getKey('ns1/pod1')!;
    expect(Object.isFrozen(first)).toBe(true);
    pods.updateObject(pod('ns1', 'pod1', '1.1.1.1', 'Pending'));
    t.expectEmpty();
    expect(views.getKey('ns1/pod1')).toBe(first);
    expect(made.at(-1)).not.toBe(first);
    expect(Object.isFrozen(made.at(-1))).toBe(false);
    pods.updateObject(pod('ns1', 'pod1', '1.1.1.2'));
    t.expectOrdered('update/ns1/pod1');
    expect(Object.isFrozen(views.getKey('ns1/pod1'))).toBe(true);
  });

  it('should support an index over the mapped values (krt TestMapCollectionWithIndex)', () => {
    const pods = newStaticCollection<Pod>([pod('ns1', 'a', '1.1.1.1'), pod('ns1', 'b', '2.2.2.2'), pod('ns2', 'c', '3.3.3.3')]);
    const views = mapCollection(pods, view);
    const byIP = newIndex(views, 'ip', (v) => [v.ip]);
    expect(byIP.lookup('1.1.1.1').map((v) => v.metadata.name)).toEqual(['a']);
    expect(byIP.lookup('2.2.2.2').map((v) => v.metadata.name)).toEqual(['b']);
    expect(byIP.lookup('3.3.3.3').map((v) => v.metadata.name)).toEqual(['c']);
    pods.updateObject(pod('ns1', 'a', '3.3.3.3'));
    expect(byIP.lookup('1.1.1.1')).toEqual([]);
    expect(
      byIP
        .lookup('3.3.3.3')
        .map((v) => v.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
  });

  describe('metadata (krt TestMapCollectionMetadata)', () => {
    const cases: Array<{
      name: string;
      parent?: Record<string, unknown>;
      own?: Record<string, unknown>;
      expected: Record<string, unknown>;
    }> = [
      { name: 'none anywhere', expected: {} },
      { name: 'empty own metadata', own: {}, expected: {} },
      { name: 'non-empty own metadata', own: { owner: 'map' }, expected: { owner: 'map' } },
      { name: "the parent's, inherited", parent: { owner: 'parent' }, expected: { owner: 'parent' } },
      { name: 'its own over the parent’s', parent: { owner: 'parent' }, own: { owner: 'map' }, expected: { owner: 'map' } },
    ];
    for (const c of cases) {
      it(`should report ${c.name}`, () => {
        const pods = newStaticCollection<Pod>([], c.parent !== undefined ? { metadata: c.parent } : undefined);
        const views = mapCollection(pods, view, c.own !== undefined ? { metadata: c.own } : undefined);
        expect(views.metadata()).toEqual(c.expected);
      });
    }
  });

  it('should report a function that changes the key, and produce nothing for that object', () => {
    const pods = newStaticCollection<Pod>([]);
    const renamed = mapCollection(
      pods,
      (p) => ({ ...view(p), metadata: { name: `${p.metadata.name}-x`, namespace: p.metadata.namespace } }),
      { name: 'Renamed' },
    );
    const errors: TransformError[] = [];
    renamed.errors$.subscribe((e) => errors.push(e));
    const t = trackEvents(renamed);
    pods.updateObject(pod('ns', 'a', '1.1.1.1'));
    t.expectEmpty();
    expect(renamed.list()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect([errors[0]!.collection, errors[0]!.key]).toEqual(['Renamed', 'ns/a']);
    expect(errors[0]!.error).toBeInstanceOf(KeyError);
    expect(errors[0]!.message).toContain('"ns/a" became "ns/a-x"');
    expect(logged.length).toBeGreaterThan(0);
  });

  it('should keep the last mapped value when the function throws, and recover', () => {
    const pods = newStaticCollection<Pod>([pod('ns', 'a', '1.1.1.1')]);
    const views = mapCollection(pods, (p) => {
      if (p.status.phase === 'Broken') throw new Error('cannot map a broken pod');
      return view(p);
    });
    const errors: TransformError[] = [];
    views.errors$.subscribe((e) => errors.push(e));
    const t = trackEvents(views);
    t.expectOrdered('add/ns/a');
    pods.updateObject(pod('ns', 'a', '2.2.2.2', 'Broken'));
    t.expectEmpty();
    expect(views.getKey('ns/a')?.ip).toBe('1.1.1.1');
    expect(errors.map((e) => e.key)).toEqual(['ns/a']);
    pods.updateObject(pod('ns', 'a', '3.3.3.3'));
    t.expectOrdered('update/ns/a');
    expect(views.getKey('ns/a')?.ip).toBe('3.3.3.3');
  });

  it('should emit nothing when the mapped value is unchanged, and map only the objects that changed', () => {
    const pods = newStaticCollection<Pod>([pod('ns', 'a', '1.1.1.1'), pod('ns', 'b', '2.2.2.2')]);
    const mapped: string[] = [];
    const views = mapCollection(pods, (p) => {
      mapped.push(p.metadata.name);
      return view(p);
    });
    const t = trackEvents(views);
    t.expectUnordered('add/ns/a', 'add/ns/b');
    mapped.length = 0;
    // The phase is not part of the view: the pod changes, the view does not.
    pods.updateObject(pod('ns', 'a', '1.1.1.1', 'Pending'));
    t.expectEmpty();
    expect(mapped).toEqual(['a']);
    // Reading does not map again.
    views.list();
    views.getKey('ns/b');
    expect(mapped).toEqual(['a']);
  });

  it('should emit one batch per transaction', () => {
    const pods = newStaticCollection<Pod>([]);
    const views = mapCollection(pods, view);
    const t = trackEvents(views, { batches: true });
    batch(() => {
      pods.updateObject(pod('ns', 'a', '1'));
      pods.updateObject(pod('ns', 'b', '2'));
      pods.updateObject(pod('ns', 'a', '3'));
    });
    expect(t.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['add/ns/a,add/ns/b']);
    expect(views.getKey('ns/a')?.ip).toBe('3');
  });

  it('should sync with its parent', () => {
    const pods = newStaticCollection<Pod>([pod('ns', 'a', '1')], { synced: false });
    const views = mapCollection(pods, view);
    expect(views.hasSynced()).toBe(false);
    pods.markSynced();
    expect(views.hasSynced()).toBe(true);
  });

  it('should stop following its parent once stopped, keeping its last state', () => {
    const pods = newStaticCollection<Pod>([pod('ns', 'a', '1')]);
    const stop = new AbortController();
    const views = mapCollection(pods, view, { stop: stop.signal });
    const t = trackEvents(views);
    t.expectOrdered('add/ns/a');
    stop.abort();
    pods.updateObject(pod('ns', 'b', '2'));
    t.expectEmpty();
    expect(views.list().map((v) => v.metadata.name)).toEqual(['a']);
  });
});
