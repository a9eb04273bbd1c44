// newInformer under faults: every scenario rebuilds the state from the events it receives and compares it with the server's.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { setLogger } from '../../src/index.js';
import { newInformer, informerStats } from '../../src/kube/index.js';
import type { ExpiredWatchMode } from '../../src/apiserver/index.js';
import {
  Harness,
  Replica,
  expectConverged,
  freePort,
  installCrd,
  isList,
  isWatch,
  kubeConfigFor,
  recordingScheduler,
  requestsTo,
  serverVersions,
  until,
} from '../helpers/kube.js';
import { seededRandom } from '../../src/testing/index.js';

const cm = (name: string, data: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const FAST = { initialMs: 10, maxMs: 100 };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const nameOf = (o: KubernetesObject | undefined): string => o?.metadata?.name ?? '?';

/** Random creates, updates and deletes of ConfigMaps in `default`; `after(i)` runs after write i. */
async function churn(core: CoreV1Api, writes: number, seed: number, after: (i: number) => void = () => {}): Promise<void> {
  const rand = seededRandom(seed);
  const live = new Set<string>();
  for (let i = 0; i < writes; i++) {
    const names = [...live];
    const r = rand();
    if (names.length < 3 || (r < 0.4 && names.length < 12)) {
      const name = `s${seed}-${i}`;
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm(name, { v: String(i) }) });
      live.add(name);
    } else if (r < 0.8) {
      const name = names[Math.floor(rand() * names.length)]!;
      await core.patchNamespacedConfigMap({ name, namespace: 'default', body: { data: { v: String(i) } } }, mergePatch);
    } else {
      const name = names[Math.floor(rand() * names.length)]!;
      await core.deleteNamespacedConfigMap({ name, namespace: 'default' });
      live.delete(name);
    }
    after(i);
  }
}

describe('newInformer under faults', () => {
  const h = new Harness();
  afterEach(() => h.release());
  /** A fresh server, and an informer of its ConfigMaps (with a replica of what it emits), synced. */
  const syncedInformer = async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), backoff: FAST });
    const replica = new Replica(cms);
    expect(await cms.waitUntilSynced()).toBe(true);
    return { server, kc, core, cms, replica };
  };
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  it('should stay exact when the watch is cut every few events while a writer creates, updates and deletes', async () => {
    const { server, kc, core, cms, replica } = await syncedInformer();
    await churn(core, 120, 1, (i) => {
      if (i % 5 === 4) server.dropWatches();
    });
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'watch cut every 5 writes');
    const stats = informerStats(cms)!;
    // Every cut resumed from the last resourceVersion: many watches, a single LIST, no error.
    expect(stats.watches).toBeGreaterThanOrEqual(20);
    expect(stats).toMatchObject({ lists: 1, relists: 0, errors: 0 });
    expect(replica.errors).toEqual([]);
  });

  for (const mode of ['status', 'event'] as ExpiredWatchMode[]) {
    it(`should relist after compaction while disconnected (410 as ${mode === 'status' ? 'an HTTP status' : 'an in-stream ERROR'}), emitting exactly what changed`, async () => {
      const server = await h.server({ expiredWatch: mode });
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(n) });
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), backoff: FAST });
      const replica = new Replica(cms);
      expect(await cms.waitUntilSynced()).toBe(true);
      const seen = replica.events().length;
      const uidOfE = cms.getKey('default/e')?.metadata?.uid;

      // Cut the watch and hold the reconnection at the server while the world changes and history is compacted.
      await until(() => server.openWatches() === 1, 'the first watch');
      server.delayNext(1, 1000, { match: isWatch('/configmaps') });
      server.dropWatches();
      await until(() => requestsTo(server, 'GET', 'watch=').length === 2, 'the held reconnection');
      await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
      await core.deleteNamespacedConfigMap({ name: 'c', namespace: 'default' });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('x') });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('y') });
      await core.patchNamespacedConfigMap({ name: 'd', namespace: 'default', body: { data: { k: 'v' } } }, mergePatch);
      await core.deleteNamespacedConfigMap({ name: 'e', namespace: 'default' });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('e', { again: 'yes' }) });
      server.compact();

      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), `compaction (${mode})`);
      const events = replica.events().slice(seen);
      expect(events.map((e) => `${e.type}/${nameOf(e.new ?? e.old)}`).sort()).toEqual([
        'add/x',
        'add/y',
        'delete/b',
        'delete/c',
        'update/d',
        'update/e',
      ]);
      // A delete carries the last object the informer knew; the re-created e is a new object.
      expect(events.find((e) => e.type === 'delete' && nameOf(e.old) === 'b')?.old?.metadata?.resourceVersion).toBeDefined();
      expect(cms.getKey('default/e')?.metadata?.uid).not.toBe(uidOfE);
      expect(informerStats(cms)).toMatchObject({ lists: 2, relists: 1, errors: 0 });

      // And it keeps following the watch afterwards.
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('z') });
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after the relist');
      expect(replica.events().at(-1)).toMatchObject({ type: 'add', new: { metadata: { name: 'z' } } });
    });
  }

  it('should back off instead of relisting in a loop while every watch answers 410', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    server.failNext(5, 410, { match: isWatch('/configmaps') });
    const timers = recordingScheduler();
    // The top of the jitter range, so the delays are the backoff itself.
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), timerScheduler: timers.scheduler, backoff: { random: () => 1 } });
    const replica = new Replica(cms);
    expect(await cms.waitUntilSynced()).toBe(true);
    await until(() => server.openWatches() === 1, 'a watch that holds');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), '410 loop');
    // LIST, WATCH 410, wait, LIST, … : each round waits longer than the one before.
    expect(timers.delays).toEqual([100, 200, 400, 800, 1600]);
    expect(informerStats(cms)).toMatchObject({ lists: 6, relists: 5 });
  });

  it('should report 5xx bursts on LIST and on WATCH, retry, and converge', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    server.failNext(3, 500, { match: isList('/configmaps') });
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), backoff: FAST });
    const replica = new Replica(cms);
    expect(await cms.waitUntilSynced()).toBe(true);
    expect(replica.errors).toHaveLength(3);
    for (const e of replica.errors) {
      expect(e.message).toMatch(/list of \/api\/v1\/configmaps failed; retrying/);
      expect((e.error as { statusCode?: number }).statusCode).toBe(500);
    }
    expect(replica.batches).toHaveLength(1);

    await until(() => server.openWatches() === 1, 'the first watch');
    server.failNext(4, 503, { match: isWatch('/configmaps') });
    server.dropWatches();
    await churn(core, 30, 2);
    await until(
      () => replica.errors.length === 7,
      () => `4 watch errors, got ${replica.errors.length - 3}`,
    );
    for (const e of replica.errors.slice(3)) {
      expect(e.message).toMatch(/watch of \/api\/v1\/configmaps failed; retrying/);
      expect((e.error as { statusCode?: number }).statusCode).toBe(503);
    }
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), '5xx bursts');
    expect(informerStats(cms)).toMatchObject({ lists: 4, relists: 0, errors: 7 });
  });

  it('should report an in-stream watch ERROR, watch again from its resourceVersion without relisting, and stay exact', async () => {
    const { server, kc, core, cms, replica } = await syncedInformer();
    await until(() => server.openWatches() === 1, 'the first watch');
    let failed = 0;
    // Only while a watch is open, so that every fault reaches the informer as an ERROR event.
    await churn(core, 60, 6, (i) => {
      if (i % 10 === 9 && server.openWatches() === 1) {
        server.failWatches(i % 20 === 9 ? 500 : 503);
        failed++;
      }
    });
    await until(
      () => replica.errors.length === failed,
      () => `${failed} watch errors, got ${replica.errors.length}`,
    );
    expect(failed).toBeGreaterThanOrEqual(3);
    for (const e of replica.errors) {
      expect(e.message).toMatch(/watch of \/api\/v1\/configmaps failed; retrying/);
      const failure = e.error as { statusCode?: number; reason?: string };
      expect([
        [500, 'InternalError'],
        [503, 'ServiceUnavailable'],
      ]).toContainEqual([failure.statusCode, failure.reason]);
      expect(String((e.error as Error).message)).toMatch(/watch error: injected watch failure: 50[03]/);
    }
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'in-stream watch errors');
    // The resourceVersion survives the error: no second LIST, nothing emitted twice.
    expect(informerStats(cms)).toMatchObject({ lists: 1, relists: 0, errors: failed });
  });

  it('should converge through slow answers to LIST and WATCH without reporting errors', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    server.delayNext(1, 400, { match: isList('/configmaps') });
    server.delayNext(3, 250, { match: isWatch('/configmaps') });
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), backoff: FAST });
    const replica = new Replica(cms);
    const writes = churn(core, 40, 3, (i) => {
      if (i % 10 === 9) server.dropWatches();
    });
    expect(await cms.waitUntilSynced()).toBe(true);
    await writes;
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'slow server');
    expect(replica.errors).toEqual([]);
    expect(informerStats(cms)).toMatchObject({ lists: 1, errors: 0 });
  });

  it('should keep retrying an unreachable server with capped backoff, then converge once it comes up', async () => {
    const port = await freePort();
    const kc = kubeConfigFor(`http://127.0.0.1:${port}`);
    // Waits run (almost) at once, but the delays asked for are recorded: that is the backoff.
    const timers = recordingScheduler(2);
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), timerScheduler: timers.scheduler, backoff: { random: () => 1 } });
    const replica = new Replica(cms);
    await until(() => timers.delays.length >= 10, 'ten retries');
    expect(timers.delays.slice(0, 10)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
    expect(replica.errors.length).toBeGreaterThanOrEqual(10);
    expect(replica.errors[0]!.message).toMatch(/list of \/api\/v1\/configmaps failed; retrying/);
    expect(cms.hasSynced()).toBe(false);
    expect(informerStats(cms)!.lists).toBeGreaterThanOrEqual(10);

    const server = await h.server({ port });
    await server
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: cm('late') });
    expect(await cms.waitUntilSynced()).toBe(true);
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'server came up');
    expect(Object.keys(replica.versions())).toEqual(['default/late']);
  });

  it('should report an unknown kind by apiVersion and kind, retry, and sync once its CRD exists (waitForResource off)', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const widgets = newInformer<KubernetesObject>(
      kc,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
      { stop: h.stop(), backoff: FAST, waitForResource: false },
    );
    const replica = new Replica(widgets);
    await until(() => replica.errors.length >= 2, 'two failed attempts');
    expect(replica.errors[0]!.message).toMatch(/apiVersion=example\.com\/v1 kind=Widget/);
    expect((replica.errors[0]!.error as { statusCode?: number }).statusCode).toBe(404);
    expect(widgets.hasSynced()).toBe(false);

    await installCrd(kc, 'example.com', 'Widget', 'widgets');
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } },
    });
    expect(await widgets.waitUntilSynced()).toBe(true);
    await expectConverged(replica, () => serverVersions(kc, 'example.com/v1', 'Widget'), 'CRD created');
    expect(Object.keys(replica.versions())).toEqual(['default/w1']);
  });
});
