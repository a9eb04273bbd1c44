import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { newStaticCollection, newCollection, fetch, filterLabel, batch, type Collection } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import {
  captureLog,
  keysOf,
  NS,
  pod,
  service,
  simpleEndpoints,
  simplePods,
  simpleServices,
  synced,
  type Pod,
  type Service,
} from '../helpers/fixtures.js';
import { localPod, type LocalPod } from './newCollection.fixtures.js';

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

  it('should hand out its metadata (TestCollectionMetadata)', () => {
    const m = { foo: 'bar' };
    const c = newCollection(newStaticCollection<string>([]), (_ctx, s) => s, { metadata: m });
    expect(c.metadata()).toEqual(m);
    expect(newCollection(newStaticCollection<string>([]), (_ctx, s) => s).metadata()).toEqual({});
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
