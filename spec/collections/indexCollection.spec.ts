import { describe, it, expect } from '@jest/globals';
import {
  batch,
  collectionFromEvents,
  equals,
  keyOf,
  newCollection,
  newIndex,
  newStaticCollection,
  type Event,
  type IndexObject,
} from '../../src/index.js';
import { add, createMarbleScheduler, del, eventsToStrings, trackEvents, update } from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ip: string;
}
const pod = (name: string, ip: string): Pod => ({ metadata: { name, namespace: 'namespace' }, ip });
const names = (g: IndexObject<Pod> | undefined): string[] | undefined => g && g.objects.map((p) => p.metadata.name).sort();

interface PodCount {
  ip: string;
  count: number;
}

describe('Index.asCollection', () => {
  it('should group objects by index key as the primary input of a collection (krt TestIndexAsCollection)', () => {
    const pods = newStaticCollection<Pod>([]);
    const byIP = newIndex(pods, 'ip', (p) => [p.ip]);
    const counts = newCollection(byIP.asCollection(), (_ctx, g): PodCount => ({ ip: g.key, count: g.objects.length }), {
      key: (c: PodCount) => c.ip,
    });
    pods.updateObject(pod('name', '1.2.3.4'));
    expect(counts.getKey('1.2.3.4')).toEqual({ ip: '1.2.3.4', count: 1 });
    pods.updateObject(pod('name2', '1.2.3.4'));
    expect(counts.getKey('1.2.3.4')).toEqual({ ip: '1.2.3.4', count: 2 });
    pods.updateObject(pod('name', '1.2.3.5'));
    expect(counts.getKey('1.2.3.4')).toEqual({ ip: '1.2.3.4', count: 1 });
    expect(counts.getKey('1.2.3.5')).toEqual({ ip: '1.2.3.5', count: 1 });
    pods.updateObject(pod('name2', '1.2.3.5'));
    expect(counts.getKey('1.2.3.4')).toBeUndefined();
    expect(counts.getKey('1.2.3.5')).toEqual({ ip: '1.2.3.5', count: 2 });
    expect(counts.getKey('dummy')).toBeUndefined();

    const groups = byIP.asCollection();
    expect(groups.getKey('1.2.3.4')).toBeUndefined();
    expect(groups.list().map((g) => [g.key, names(g)])).toEqual([['1.2.3.5', ['name', 'name2']]]);
  });

  it('should take metadata from its options (krt TestIndexAsCollectionMetadata)', () => {
    const byIP = newIndex(newStaticCollection<Pod>([], { metadata: { owner: 'pods' } }), 'ip', (p) => [p.ip]);
    expect(byIP.asCollection({ metadata: { owner: 'groups' } }).metadata()).toEqual({ owner: 'groups' });
    expect(byIP.asCollection().metadata()).toEqual({});
  });

  it('should emit add when a group appears, update when it changes, delete when it empties', () => {
    const pods = newStaticCollection<Pod>([]);
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
    const events: string[] = [];
    groups.register((e) => {
      events.push(
        `${e.type}/${(e.new ?? e.old)!.key}:${names(e.old as IndexObject<Pod>) ?? '-'}>${names(e.new as IndexObject<Pod>) ?? '-'}`,
      );
    });
    pods.updateObject(pod('a', '1'));
    pods.updateObject(pod('b', '1'));
    pods.updateObject(pod('a', '2'));
    pods.updateObject(pod('a', '2b'));
    pods.deleteObject('namespace/b');
    expect(events).toEqual(['add/1:->a', 'update/1:a>a,b', 'update/1:a,b>b', 'add/2:->a', 'delete/2:a>-', 'add/2b:->a', 'delete/1:b>-']);
  });

  it('should emit one batch per transaction, covering every group touched', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1'), pod('b', '2')]);
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
    const t = trackEvents(groups, { batches: true });
    t.takeBatches();
    t.take();
    batch(() => {
      pods.updateObject(pod('a', '2'));
      pods.updateObject(pod('c', '3'));
    });
    expect(t.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['add/3,delete/1,update/2']);
  });

  it('should key groups by their index key, as keyOf does', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1')]);
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
    const g = groups.getKey('1')!;
    expect(keyOf(g)).toBe('1');
    expect(Object.isFrozen(g)).toBe(true);
    expect(Object.isFrozen(g.objects)).toBe(true);
  });

  it('should not emit an update whose groups are equal', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1'), pod('b', '1')]);
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
    const updates: Event<IndexObject<Pod>>[] = [];
    groups.registerBatch((b) => {
      updates.push(...b);
    }, false);
    // updateObject always emits an update at the source, even for an equal object: the group is unchanged.
    pods.updateObject(pod('a', '1'));
    expect(updates.filter((e) => e.type === 'update' && equals(e.old, e.new))).toEqual([]);
    expect(updates).toEqual([]);
  });

  it('should sync with its source', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1')], { synced: false });
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
    expect(groups.hasSynced()).toBe(false);
    pods.markSynced();
    expect(groups.hasSynced()).toBe(true);
  });

  it('should follow an Observable source frame by frame', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(
        cold('-a-b-c-d', {
          a: add(pod('a', '1')),
          b: add(pod('b', '1')),
          c: update(pod('a', '1'), pod('a', '2')),
          d: [del(pod('a', '2')), del(pod('b', '1'))],
        }),
      );
      const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
      expectObservable(eventsToStrings(groups.events$, { sort: true })).toBe('-a-b-c-d', {
        a: 'add/1',
        b: 'update/1',
        c: 'add/2,update/1',
        d: 'delete/1,delete/2',
      });
    });
  });

  it('should stop following its source once stopped, keeping its last state', () => {
    const pods = newStaticCollection<Pod>([pod('a', '1')]);
    const stop = new AbortController();
    const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection({ stop: stop.signal });
    const t = trackEvents(groups);
    t.expectOrdered('add/1');
    stop.abort();
    pods.updateObject(pod('b', '2'));
    t.expectEmpty();
    expect(groups.list().map((g) => g.key)).toEqual(['1']);
  });

  it('should replay the current groups to a late events$ subscriber', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('-a-b', { a: [add(pod('a', '1')), add(pod('b', '2'))], b: add(pod('c', '2')) }));
      const groups = newIndex(pods, 'ip', (p) => [p.ip]).asCollection();
      expectObservable(eventsToStrings(groups.events$, { sort: true }), '--^').toBe('--rb', { r: 'add/1,add/2', b: 'update/2' });
    });
  });
});
