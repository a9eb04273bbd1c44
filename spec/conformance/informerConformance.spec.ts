// krt's conformance suite (reference §10) for the informer (krt rig 1: ConfigMaps), with waiting: changes go
// through the embedded API server and arrive by watch, so every expectation waits for the collection to show them.
// (spec/conformance/rig.ts builds its rigs synchronously; an informer needs a server started first.)
import { describe, it, expect, afterEach } from '@jest/globals';
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { keyOf, latest, type Collection, type Event } from '../../src/index.js';
import { newInformer } from '../../src/kube/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { Harness, until } from '../helpers/kube.js';

const METADATA = Object.freeze({ foo: 'bar' });

/** krt rig 1: an informer of ConfigMaps; keys `a/b` are namespace `a`, name `b`. */
class InformerRig {
  readonly collection: Collection<V1ConfigMap>;
  private readonly core: CoreV1Api;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly expected = new Set<string>();

  constructor(kc: KubeConfig, stop: AbortSignal) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.collection = newInformer<V1ConfigMap>(kc, { apiVersion: 'v1', kind: 'ConfigMap' }, { stop, metadata: { ...METADATA }, name: 'conformance/informer' });
  }

  /** Namespaces the keys will use (a namespaced object needs its namespace to exist). */
  static async make(h: Harness): Promise<InformerRig> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'a' } } });
    return new InformerRig(kc, h.stop());
  }

  createObject(key: string): Promise<unknown> {
    const [namespace, name] = key.split('/') as [string, string];
    this.expected.add(key);
    return this.track(this.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace } } }));
  }

  replaceKey(oldKey: string, newKey: string): Promise<unknown> {
    const [namespace, name] = oldKey.split('/') as [string, string];
    this.expected.delete(oldKey);
    return Promise.all([this.track(this.core.deleteNamespacedConfigMap({ name, namespace })), this.createObject(newKey)]);
  }

  /** Resolves once every change made so far went through and the collection shows exactly the expected keys. */
  async settle(): Promise<void> {
    await until(async () => {
      await Promise.all([...this.pending]);
      const keys = this.collection.list().map((o) => keyOf(o));
      return this.pending.size === 0 && keys.length === this.expected.size && keys.every((k) => this.expected.has(k));
    }, () => `the informer to show ${[...this.expected].sort().join(', ')}; it shows ${this.collection.list().map((o) => keyOf(o)).sort().join(', ')}`);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }
}

describe('conformance: informer (krt rig 1)', () => {
  const h = new Harness();
  afterEach(() => h.release());

  it('should pass the conformance suite', async () => {
    const rig = await InformerRig.make(h);
    const c = rig.collection;

    // 1. A new collection is empty and carries the configured metadata.
    expect(c.list()).toEqual([]);
    expect(c.metadata()).toEqual(METADATA);

    // 2. An early handler; the collection and the registration sync.
    const early = trackEvents(c);
    expect(await c.waitUntilSynced()).toBe(true);
    expect(await early.registration.waitUntilSynced()).toBe(true);

    // 3. One object.
    void rig.createObject('a/b');
    await rig.settle();
    early.expectOrdered('add/a/b');
    expect(c.list()).toHaveLength(1);
    expect(c.getKey('a/b')).toBeDefined();

    // 4, 5. Late handlers get the replay.
    const late = trackEvents(c);
    expect(await late.registration.waitUntilSynced()).toBe(true);
    late.expectOrdered('add/a/b');
    const remove = trackEvents(c);
    expect(await remove.registration.waitUntilSynced()).toBe(true);
    remove.expectOrdered('add/a/b');

    // 6. A handler that never finishes: its registration never syncs, and nobody else waits for it.
    let blockedCalls = 0;
    const blocked = c.register(() => {
      blockedCalls++;
      return new Promise<void>(() => {});
    });
    expect(blocked.hasSynced()).toBe(false);

    // 7. A second object reaches every other handler.
    void rig.createObject('a/c');
    await rig.settle();
    early.expectOrdered('add/a/c');
    late.expectOrdered('add/a/c');
    remove.expectOrdered('add/a/c');
    expect(c.list()).toHaveLength(2);
    expect(c.getKey('a/b')).toBeDefined();
    expect(c.getKey('a/c')).toBeDefined();

    // 8, 9. Unregistered handlers get nothing more; a further event still flows past the blocked handler.
    remove.registration.unregister();
    void rig.createObject('a/d');
    await rig.settle();
    early.expectOrdered('add/a/d');
    late.expectOrdered('add/a/d');
    expect(c.list()).toHaveLength(3);

    // 10. A handler can still be added while another one is blocked.
    const end = trackEvents(c);
    expect(await end.registration.waitUntilSynced()).toBe(true);
    end.expectUnordered('add/a/b', 'add/a/c', 'add/a/d');

    // 11. Race: a/0 … a/19 are created concurrently while handlers register at jittered moments, one of
    // them from inside a delivery; each must receive every add exactly once.
    const races: Array<ReturnType<typeof trackEvents<V1ConfigMap>>> = [];
    const registerRace = (): void => {
      races.push(trackEvents(c));
    };
    registerRace();
    let fromDelivery = false;
    const spy = c.register((e: Event<V1ConfigMap>) => {
      if (!fromDelivery && e.type === 'add' && keyOf(latest(e)) === 'a/9') {
        fromDelivery = true;
        registerRace();
      }
    });
    const creations: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      creations.push(
        new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20))).then(() => {
          if (i === 5 || i === 13) registerRace();
          return rig.createObject(`a/${i}`);
        }),
      );
      if (i === 10) setTimeout(registerRace, Math.floor(Math.random() * 20));
    }
    await Promise.all(creations);
    await rig.settle();
    registerRace();
    spy.unregister();
    const all = ['add/a/b', 'add/a/c', 'add/a/d'];
    for (let i = 0; i < 20; i++) all.push(`add/a/${i}`);
    expect(fromDelivery).toBe(true);
    expect(races).toHaveLength(6);
    for (const r of races) {
      r.expectUnordered(...all);
      expect(r.registration.hasSynced()).toBe(true);
    }
    early.expectUnordered(...all.slice(3));
    expect(c.list()).toHaveLength(23);

    // 12. The unregistered handler saw nothing after unregistering; the blocked one saw its first batch only.
    remove.expectEmpty();
    expect(blocked.hasSynced()).toBe(false);
    expect(blockedCalls).toBe(1);
  });

  it('should pass the replace sub-suite', async () => {
    const rig = await InformerRig.make(h);
    const c = rig.collection;
    expect(c.metadata()).toEqual(METADATA);
    const t = trackEvents(c);
    expect(await c.waitUntilSynced()).toBe(true);
    expect(await t.registration.waitUntilSynced()).toBe(true);

    void rig.createObject('a/b');
    await rig.settle();
    t.expectOrdered('add/a/b');
    expect(c.list()).toHaveLength(1);
    expect(c.getKey('a/b')).toBeDefined();

    void rig.replaceKey('a/b', 'a/c');
    await rig.settle();
    t.expectUnordered('delete/a/b', 'add/a/c');
    expect(c.list()).toHaveLength(1);
    expect(c.getKey('a/b')).toBeUndefined();
    expect(c.getKey('a/c')).toBeDefined();
  });
});
