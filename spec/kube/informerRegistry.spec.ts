// Informers for the same thing share one LIST and WATCH, counted from the embedded API server's request log.
import { describe, it, expect, afterEach } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { CoreV1Api, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { sharingKey } from '../../src/kube/informerRegistry.js';
import { informerReadings } from '../../src/observe/liveComponents.js';
import { Harness, Replica, isList, isWatch, until } from '../helpers/kube.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string, labels: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels },
  data: {},
});

describe('the shared informer registry', () => {
  const h = new Harness();
  afterEach(() => h.release());

  async function setup() {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a', { app: 'web' }) });
    const count = (match: (method: string, path: string) => boolean) => server.requests.filter((r) => match(r.method, r.path)).length;
    return { server, kc, core, lists: () => count(isList('/configmaps')), watches: () => count(isWatch('/configmaps')) };
  }

  it('should serve two informers for the same resource with one LIST and one WATCH, each with its own name and keys', async () => {
    const { server, kc, core, lists } = await setup();
    const first = newInformer<V1ConfigMap>(kc, CM, { name: 'first', stop: h.stop() });
    expect(await first.waitUntilSynced()).toBe(true);
    // The second joins a feed that has listed: it starts from its state, synced at once, without a request.
    const second = newInformer<V1ConfigMap>(kc, CM, {
      name: 'second',
      stop: h.stop(),
      key: (o) => `name:${(o as V1ConfigMap).metadata!.name}`,
    });
    expect(second.hasSynced()).toBe(true);
    expect(second.list().map((o) => o.metadata!.name)).toEqual(['a']);
    expect(second.getKey('name:a')).toBe(first.getKey('default/a'));
    const a = new Replica(first);
    const b = new Replica(second);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(() => a.state.has('default/b') && second.getKey('name:b') !== undefined, 'b in both');
    expect(lists()).toBe(1);
    expect(server.openWatches()).toBe(1);
    expect(informerStats(first)).toBe(informerStats(second));
    expect(informerStats(first)).toMatchObject({ lists: 1, watches: 1 });
    expect([first.name, second.name]).toEqual(['first', 'second']);
    expect([a.violations, b.violations]).toEqual([[], []]);
    // Metrics count the shared LIST and WATCH once, not once per collection.
    const readings = informerReadings().filter((r) => r.collection === (first as unknown) || r.collection === (second as unknown));
    expect(readings.map((r) => [r.lists, r.watches])).toEqual([
      [1, 1],
      [0, 0],
    ]);
  });

  it('should keep the WATCH open until the last user stops, and start a new one for a user that comes after', async () => {
    const { server, kc, core, lists, watches } = await setup();
    const stopFirst = new AbortController();
    const stopSecond = new AbortController();
    const first = newInformer<V1ConfigMap>(kc, CM, { stop: stopFirst.signal });
    const second = newInformer<V1ConfigMap>(kc, CM, { stop: stopSecond.signal });
    expect(await first.waitUntilSynced()).toBe(true);
    expect(await second.waitUntilSynced()).toBe(true);
    await until(() => server.openWatches() === 1, 'the watch');

    stopFirst.abort();
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(() => second.getKey('default/b') !== undefined, 'b, seen by the user still there');
    // The stopped one keeps its last state and hears nothing more.
    expect(first.getKey('default/b')).toBeUndefined();
    expect(server.openWatches()).toBe(1);
    expect(informerStats(second)!.state).toBe('watching');

    stopSecond.abort();
    await until(() => server.openWatches() === 0, 'the watch closed with the last user');
    expect(informerStats(second)!.state).toBe('stopped');
    expect([lists(), watches()]).toEqual([1, 1]);

    // The feed is gone: a new user lists and watches afresh.
    const third = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
    expect(await third.waitUntilSynced()).toBe(true);
    expect(
      third
        .list()
        .map((o) => o.metadata!.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(lists()).toBe(2);
  });

  it('should not share across selectors, namespaces, shapes, transforms or schedulers, nor when told not to', async () => {
    const { kc, lists } = await setup();
    const transform = (o: KubernetesObject): KubernetesObject => o;
    const variants = [
      newInformer(kc, CM, { stop: h.stop() }),
      newInformer(kc, { ...CM, labelSelector: 'app=web' }, { stop: h.stop() }),
      newInformer(kc, { ...CM, namespace: 'default' }, { stop: h.stop() }),
      newInformer(kc, CM, { stop: h.stop(), stripServerFields: true }),
      newInformer(kc, CM, { stop: h.stop(), transform }),
      newInformer(kc, CM, { stop: h.stop(), shared: false }),
      newInformer(kc, CM, { stop: h.stop(), timerScheduler: new VirtualTimeScheduler() }),
      // Same transform function: shares with the one above.
      newInformer(kc, CM, { stop: h.stop(), transform }),
    ];
    for (const v of variants) expect(await v.waitUntilSynced()).toBe(true);
    expect(lists()).toBe(7);
    expect(informerStats(variants[7]!)).toBe(informerStats(variants[4]!));
  });

  it('should name in the sharing key exactly what decides what is listed, watched and stored', () => {
    const base = sharingKey(CM, undefined);
    expect(sharingKey({ ...CM }, { name: 'x', pageSize: 3, backoff: { initialMs: 1 } })).toBe(base);
    expect(sharingKey({ ...CM, fieldSelector: 'metadata.name=a' }, undefined)).not.toBe(base);
    expect(sharingKey({ ...CM, plural: 'configmaps' }, undefined)).not.toBe(base);
    expect(sharingKey(CM, { metadataOnly: true })).not.toBe(base);
    expect(sharingKey(CM, { opaqueResourceVersions: true })).not.toBe(base);
    expect(sharingKey(CM, { waitForResource: false })).not.toBe(base);
    expect(sharingKey(CM, { waitForResource: true, requestTimeoutMs: 5, resourcePollMs: 9 })).toBe(base);
  });
});
