import { describe, it, expect } from '@jest/globals';
import { map } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import {
  batch,
  collectionFromEvents,
  fetch,
  filterLabel,
  joinCollection,
  newCollection,
  newManyCollection,
  newSingleton,
  newStatic,
  newStaticCollection,
  type Collection,
  type Event,
} from '../../../src/index.js';
import { add, createMarbleScheduler, describeEvents, eventsToStrings, trackEvents } from '../../../src/testing/index.js';

interface Named {
  metadata: { name: string; namespace: string };
  v: string;
}
const obj = (ns: string, name: string, v: string): Named => ({ metadata: { name, namespace: ns }, v });
const key = (n: Named): string => `${n.metadata.namespace}/${n.metadata.name}`;

// Fixtures of krt's collection_test.go: pods and services become SimplePods and SimpleServices, and
// SimpleEndpoints pairs each service with the pods its selector picks.
interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  status?: { podIP?: string };
}
interface Service {
  metadata: { name: string; namespace: string };
  spec: { selector: Record<string, string> };
}
interface ServiceEntry {
  metadata: { name: string; namespace: string };
  spec: { workloadSelector?: { labels: Record<string, string> } };
}
interface SimplePod {
  metadata: { name: string; namespace: string };
  labels: Record<string, string>;
  ip: string;
}
interface SimpleService {
  metadata: { name: string; namespace: string };
  selector: Record<string, string>;
}
interface SimpleEndpoint {
  pod: string;
  service: string;
  namespace: string;
  ip: string;
}

const mkPod = (name: string, ip?: string, labels: Record<string, string> = { app: 'foo' }): Pod => ({
  metadata: { name, namespace: 'namespace', labels },
  status: ip ? { podIP: ip } : {},
});
const staticPod: SimplePod = { metadata: { name: 'static', namespace: 'namespace' }, labels: { app: 'foo' }, ip: '9.9.9.9' };

function simplePods(pods: Collection<Pod>): Collection<SimplePod> {
  return newCollection(pods, (_ctx, p) =>
    p.status?.podIP
      ? { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, labels: p.metadata.labels ?? {}, ip: p.status.podIP }
      : undefined,
  );
}

function simpleEndpoints(services: Collection<SimpleService>, pods: Collection<SimplePod>): Collection<SimpleEndpoint> {
  return newManyCollection(
    services,
    (ctx, svc) =>
      fetch(ctx, pods, filterLabel(svc.selector)).map((p) => ({
        pod: p.metadata.name,
        service: svc.metadata.name,
        namespace: svc.metadata.namespace,
        ip: p.ip,
      })),
    { name: 'SimpleEndpoints', key: (e: SimpleEndpoint) => `${e.namespace}/${e.service}/${e.pod}` },
  );
}

const endpointList = (c: Collection<SimpleEndpoint>): string[] =>
  c
    .list()
    .map((e) => `${e.service}/${e.pod}@${e.ip}`)
    .sort();

describe('joinCollection', () => {
  it('should emit each change under its own key and list every key (krt TestJoinCollection/basic)', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const c3 = newStatic<Named>(undefined);
    const j = joinCollection([c1.asCollection(), c2.asCollection(), c3.asCollection()]);
    const batches: string[] = [];
    j.registerBatch((b) => {
      batches.push(describeEvents(b, { sort: true }));
    });
    c1.set(obj('c1', 'a', '1'));
    expect(batches.pop()).toBe('add/c1/a');
    c2.set(obj('c2', 'a', '1'));
    expect(batches.pop()).toBe('add/c2/a');
    c3.set(obj('c3', 'a', '1'));
    expect(batches.pop()).toBe('add/c3/a');
    // A singleton changing key is a delete plus an add, in one batch.
    c1.set(obj('c1', 'b', '1'));
    expect(batches.pop()).toBe('add/c1/b,delete/c1/a');
    expect(batches).toEqual([]);
    expect(j.list().map(key).sort()).toEqual(['c1/b', 'c2/a', 'c3/a']);
  });

  it('should replay exactly the state set before the join was built (krt RegisterBatch/initial state before Join)', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const c3 = newStatic<Named>(undefined);
    c1.set(obj('c1', 'a', '1'));
    c2.set(obj('c2', 'a', '1'));
    const j = joinCollection([c1.asCollection(), c2.asCollection(), c3.asCollection()]);
    const withReplay = trackEvents(j, { batches: true });
    expect(withReplay.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['add/c1/a,add/c2/a']);
    const noReplay = trackEvents(j, { runExistingState: false });
    noReplay.expectEmpty();
    withReplay.take();
    c3.set(obj('c3', 'a', '1'));
    noReplay.expectOrdered('add/c3/a');
    withReplay.expectOrdered('add/c3/a');
  });

  it('should replay exactly the state set after the join was built (krt RegisterBatch/initial state after Join)', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const c3 = newStatic<Named>(undefined);
    const j = joinCollection([c1.asCollection(), c2.asCollection(), c3.asCollection()]);
    c1.set(obj('c1', 'a', '1'));
    c2.set(obj('c2', 'a', '1'));
    const withReplay = trackEvents(j, { batches: true });
    expect(withReplay.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['add/c1/a,add/c2/a']);
    withReplay.take();
    const noReplay = trackEvents(j, { runExistingState: false });
    noReplay.expectEmpty();
  });

  it('should deliver each add once to a handler registered inside the transaction that built the join', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const seen: string[] = [];
    batch(() => {
      c1.set(obj('c1', 'a', '1'));
      c2.set(obj('c2', 'a', '1'));
      const j = joinCollection([c1.asCollection(), c2.asCollection()]);
      j.register((e) => {
        seen.push(`${e.type}/${key(e.new ?? e.old!)}`);
      });
    });
    expect(seen.sort()).toEqual(['add/c1/a', 'add/c2/a']);
  });

  it('should follow services, service entries and a static pod through joins (krt TestCollectionJoin)', () => {
    const pods = newStaticCollection<Pod>([]);
    const services = newStaticCollection<Service>([]);
    const serviceEntries = newStaticCollection<ServiceEntry>([]);
    const staticPods = newStatic<SimplePod>(staticPod);
    const fromServices = newCollection(services, (_ctx, s): SimpleService => ({ metadata: s.metadata, selector: s.spec.selector }));
    const fromEntries = newCollection(serviceEntries, (_ctx, se): SimpleService | undefined =>
      se.spec.workloadSelector ? { metadata: se.metadata, selector: se.spec.workloadSelector.labels } : undefined,
    );
    const allServices = joinCollection([fromServices, fromEntries], { name: 'AllServices' });
    const allPods = joinCollection([simplePods(pods), staticPods.asCollection()], { name: 'AllPods' });
    const endpoints = simpleEndpoints(allServices, allPods);
    const tracker = trackEvents(endpoints, { key: (e) => `${e.namespace}/${e.service}/${e.pod}` });

    pods.updateObject(mkPod('name', '1.2.3.4'));
    expect(endpointList(endpoints)).toEqual([]);
    services.updateObject({ metadata: { name: 'svc', namespace: 'namespace' }, spec: { selector: { app: 'foo' } } });
    expect(endpointList(endpoints)).toEqual(['svc/name@1.2.3.4', 'svc/static@9.9.9.9']);
    tracker.expectUnordered('add/namespace/svc/name', 'add/namespace/svc/static');

    staticPods.set(undefined);
    expect(endpointList(endpoints)).toEqual(['svc/name@1.2.3.4']);
    tracker.expectOrdered('delete/namespace/svc/static');
    staticPods.set(staticPod);
    tracker.expectOrdered('add/namespace/svc/static');

    pods.updateObject(mkPod('name', '1.2.3.5'));
    expect(endpointList(endpoints)).toEqual(['svc/name@1.2.3.5', 'svc/static@9.9.9.9']);
    tracker.expectOrdered('update/namespace/svc/name');

    pods.deleteObject('namespace/name');
    expect(endpointList(endpoints)).toEqual(['svc/static@9.9.9.9']);
    tracker.expectOrdered('delete/namespace/svc/name');

    pods.updateObject(mkPod('name', '1.2.3.6'));
    expect(endpointList(endpoints)).toEqual(['svc/name@1.2.3.6', 'svc/static@9.9.9.9']);
    tracker.expectOrdered('add/namespace/svc/name');

    // A service entry without a workload selector is no service at all.
    serviceEntries.updateObject({ metadata: { name: 'se', namespace: 'namespace' }, spec: {} });
    tracker.expectEmpty();
    serviceEntries.updateObject({
      metadata: { name: 'se', namespace: 'namespace' },
      spec: { workloadSelector: { labels: { app: 'foo' } } },
    });
    expect(endpointList(endpoints)).toEqual(['se/name@1.2.3.6', 'se/static@9.9.9.9', 'svc/name@1.2.3.6', 'svc/static@9.9.9.9']);
    tracker.expectUnordered('add/namespace/se/name', 'add/namespace/se/static');
  });

  it('should list the full initial state of every child the moment it syncs (krt TestCollectionJoinSync)', async () => {
    const testScheduler: TestScheduler = createMarbleScheduler();
    let synced: Promise<boolean> | undefined;
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('--a', { a: [add(mkPod('name', '1.2.3.4'))] }), { name: 'PodInformer' });
      const allPods = joinCollection([simplePods(pods), newStatic<SimplePod>(staticPod).asCollection()], { name: 'AllPods' });
      synced = allPods.waitUntilSynced();
      const probe = cold('-x-y').pipe(
        map(() => ({
          synced: allPods.hasSynced(),
          pods: allPods
            .list()
            .map((p) => `${p.metadata.namespace}/${p.metadata.name}@${p.ip}`)
            .sort(),
        })),
      );
      expectObservable(probe).toBe('-x-y', {
        x: { synced: false, pods: ['namespace/static@9.9.9.9'] },
        y: { synced: true, pods: ['namespace/name@1.2.3.4', 'namespace/static@9.9.9.9'] },
      });
      expectObservable(eventsToStrings(allPods.events$)).toBe('r-a', { r: 'add/namespace/static', a: 'add/namespace/name' });
    });
    await expect(synced).resolves.toBe(true);
  });

  it('should stay unsynced, and keep its registrations unsynced, until every child has synced', () => {
    const a = newStaticCollection<Named>([obj('ns', 'a', '1')]);
    const b = newStaticCollection<Named>([], { synced: false });
    const j = joinCollection([a, b]);
    const reg = j.registerBatch(() => {});
    expect([j.hasSynced(), reg.hasSynced()]).toEqual([false, false]);
    b.markSynced();
    expect([j.hasSynced(), reg.hasSynced()]).toEqual([true, true]);
  });

  it('should emit one batch for a transaction that changes several children', () => {
    const a = newStaticCollection<Named>([]);
    const b = newStaticCollection<Named>([obj('ns', 'shared', 'b')]);
    const j = joinCollection([a, b]);
    const batches: string[] = [];
    j.registerBatch((bt) => {
      batches.push(
        bt
          .map((e) => `${e.type}/${key(e.new ?? e.old!)}:${e.old?.v ?? ''}>${e.new?.v ?? ''}`)
          .sort()
          .join(','),
      );
    }, false);
    batch(() => {
      a.updateObject(obj('ns', 'x', 'a'));
      b.updateObject(obj('ns', 'y', 'b'));
      // The higher-priority child takes over the shared key while the lower one changes it: one update, to a's value.
      a.updateObject(obj('ns', 'shared', 'a'));
      b.updateObject(obj('ns', 'shared', 'b2'));
    });
    expect(batches).toEqual(['add/ns/x:>a,add/ns/y:>b,update/ns/shared:b>a']);
  });

  it('should stay glitch-free over a diamond: readers never see the join behind its children', () => {
    const src = newStaticCollection<Named>([]);
    const evens = newCollection(src, (_ctx, o) => (Number(o.v) % 2 === 0 ? o : undefined));
    const odds = newCollection(src, (_ctx, o) => (Number(o.v) % 2 === 1 ? o : undefined));
    const all = joinCollection([evens, odds]);
    const observed: string[] = [];
    // A reader of both the source and the join: in every committed state they agree.
    newSingleton((ctx) => `${fetch(ctx, src).length}=${fetch(ctx, all).length}`).value$.subscribe((v) => observed.push(v!));
    const batches: number[] = [];
    all.registerBatch((b) => {
      batches.push(b.length);
    }, false);
    batch(() => {
      src.updateObject(obj('ns', 'a', '1'));
      src.updateObject(obj('ns', 'b', '2'));
    });
    src.updateObject(obj('ns', 'a', '4'));
    src.deleteObject('ns/b');
    expect(observed).toEqual(['0=0', '2=2', '1=1']);
    expect(batches).toEqual([2, 1, 1]);
  });

  it('should stop following its children once stopped, keeping its last state', () => {
    const a = newStaticCollection<Named>([obj('ns', 'a', '1')]);
    const stop = new AbortController();
    const j = joinCollection([a], { stop: stop.signal });
    const t = trackEvents(j);
    t.expectOrdered('add/ns/a');
    stop.abort();
    a.updateObject(obj('ns', 'b', '1'));
    t.expectEmpty();
    expect(j.list().map(key)).toEqual(['ns/a']);
  });

  it('should key objects as its first collection does when given no key option', () => {
    interface Item {
      id: string;
      v: string;
    }
    const a = newStaticCollection<Item>([], { key: (i: Item) => i.id });
    const b = newStaticCollection<Item>([{ id: 'x', v: 'b' }], { key: (i: Item) => i.id });
    const j = joinCollection([a, b]);
    const upper = newCollection(j, (_ctx, i) => ({ id: i.id, v: i.v.toUpperCase() }), { key: (i: Item) => i.id });
    expect(upper.getKey('x')).toEqual({ id: 'x', v: 'B' });
    a.updateObject({ id: 'x', v: 'a' });
    expect(upper.getKey('x')).toEqual({ id: 'x', v: 'A' });
    trackEvents(j).expectOrdered('add/x');
  });

  it('should resolve conflicts exactly as krt join_test (first collection wins)', () => {
    const c1 = newStatic<Named>(undefined);
    const c2 = newStatic<Named>(undefined);
    const c3 = newStatic<Named>(undefined);
    const j = joinCollection([c1.asCollection(), c2.asCollection(), c3.asCollection()]);
    const seen: Event<Named>[] = [];
    j.register((e) => {
      seen.push(e);
    });
    const take = () => seen.splice(0).map((e) => `${e.type}:${e.old?.v ?? ''}>${e.new?.v ?? ''}`);

    c2.set(obj('ns', 'a', 'c2'));
    expect(take()).toEqual(['add:>c2']);
    c1.set(obj('ns', 'a', 'c1'));
    expect(take()).toEqual(['update:c2>c1']);
    c3.set(obj('ns', 'a', 'c3'));
    expect(take()).toEqual([]);
    expect(j.getKey('ns/a')?.v).toBe('c1');
    c2.set(obj('ns', 'a', 'c2u'));
    expect(take()).toEqual([]);
    c1.set(undefined);
    expect(take()).toEqual(['update:c1>c2u']);
    c2.set(undefined);
    expect(take()).toEqual(['update:c2u>c3']);
    c3.set(undefined);
    expect(take()).toEqual(['delete:c3>']);
    c1.set(obj('ns', 'b', 'c1b'));
    expect(take()).toEqual(['add:>c1b']);
    c2.set(obj('ns', 'b', 'c2b'));
    expect(take()).toEqual([]);
    c2.set(undefined);
    expect(take()).toEqual([]);
    expect(j.getKey('ns/b')?.v).toBe('c1b');
  });
});
