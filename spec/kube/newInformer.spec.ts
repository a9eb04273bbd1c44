import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { ManualScheduler } from '../helpers/manualScheduler.js';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Pod,
} from '@kubernetes/client-node';
import { setLogger } from '../../src/index.js';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { Harness, Replica, expectConverged, installCrd, isList, requestsTo, serverVersions, until, versions } from '../helpers/kube.js';

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>, namespace = 'default'): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data,
});
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describe('newInformer', () => {
  const h = new Harness();
  afterEach(() => h.release());
  // Fault tests report errors on purpose; keep the console for real surprises.
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  describe('krt informer_test', () => {
    it('should list, sync, and follow watch events (krt TestNewInformer)', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
      const t = trackEvents(cms);
      expect(await cms.waitUntilSynced()).toBe(true);
      expect(cms.list()).toEqual([]);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
      await until(() => cms.getKey('default/a') !== undefined, 'add a');
      await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: cm('a', { x: '1' }) });
      await until(() => cms.getKey('default/a')?.data?.x === '1', 'update a');
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
      await until(() => cms.list().length === 2, 'add b');
      t.expectOrdered('add/default/a', 'update/default/a', 'add/default/b');
      const late = trackEvents(cms);
      late.expectUnordered('add/default/a', 'add/default/b');
      expect(late.registration.hasSynced()).toBe(true);
      await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
      await until(() => cms.getKey('default/b') === undefined, 'delete b');
      t.expectOrdered('delete/default/b');
      late.expectOrdered('delete/default/b');
      expect(informerStats(cms)?.lists).toBe(1);
      // Objects handed out are frozen and carry their type, even those that came from a LIST.
      expect(Object.isFrozen(cms.getKey('default/a'))).toBe(true);
      expect(cms.getKey('default/a')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    });

    it('should give the objects of a LIST their apiVersion and kind, which a real server leaves to the list', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('listed') });
      const raw = await core.listNamespacedConfigMap({ namespace: 'default' });
      expect(raw.items[0]).not.toHaveProperty('kind');
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
      expect(await cms.waitUntilSynced()).toBe(true);
      expect(cms.getKey('default/listed')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed' } });
      expect(Object.isFrozen(cms.getKey('default/listed'))).toBe(true);
    });

    it('should list a pre-existing object of a kind registered at run time (krt TestUnregisteredTypeCollection)', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      await installCrd(kc, 'example.com', 'Widget', 'widgets');
      await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } },
      });
      const widgets = newInformer<KubernetesObject & { spec: { size: number } }>(
        kc,
        { apiVersion: 'example.com/v1', kind: 'Widget' },
        { stop: h.stop() },
      );
      expect(await widgets.waitUntilSynced()).toBe(true);
      expect(widgets.list().map((w) => [w.metadata?.name, w.spec.size, w.kind, w.apiVersion])).toEqual([
        ['w1', 3, 'Widget', 'example.com/v1'],
      ]);
      expect(widgets.getKey('default/w1')).toBeDefined();
    });

    it('should carry the metadata option (krt TestInformerCollectionMetadata)', async () => {
      const server = await h.server();
      const cms = newInformer(server.kubeConfig(), CM, { stop: h.stop(), metadata: { app: 'foo' }, name: 'cms' });
      expect(cms.metadata()).toEqual({ app: 'foo' });
      expect(cms.name).toBe('cms');
    });
  });

  describe('scope and selectors', () => {
    it('should follow one namespace, or all of them', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: 'other' } } });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('d1') });
      await core.createNamespacedConfigMap({ namespace: 'other', body: cm('o1', {}, undefined, 'other') });
      const all = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
      const other = newInformer<V1ConfigMap>(kc, { ...CM, namespace: 'other' }, { stop: h.stop() });
      const otherReplica = new Replica(other);
      await Promise.all([all.waitUntilSynced(), other.waitUntilSynced()]);
      expect(Object.keys(versions(all.list())).sort()).toEqual(['default/d1', 'other/o1']);
      expect(Object.keys(versions(other.list()))).toEqual(['other/o1']);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('d2') });
      await core.createNamespacedConfigMap({ namespace: 'other', body: cm('o2', {}, undefined, 'other') });
      await core.deleteNamespacedConfigMap({ name: 'd1', namespace: 'default' });
      await expectConverged(otherReplica, () => serverVersions(kc, 'v1', 'ConfigMap', { namespace: 'other' }), 'namespace other');
      await until(() => all.list().length === 3, 'all namespaces');
      expect(Object.keys(versions(all.list())).sort()).toEqual(['default/d2', 'other/o1', 'other/o2']);
      expect(otherReplica.events().map((e) => `${e.type}/${e.new?.metadata?.name ?? e.old?.metadata?.name}`)).toEqual(['add/o1', 'add/o2']);
      expect(requestsTo(server, 'GET', '/api/v1/namespaces/other/configmaps?').length).toBeGreaterThanOrEqual(2);
    });

    it('should follow a label selector: relabelled out is a delete, relabelled in an add', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('web1', {}, { app: 'web' }) });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('db1', {}, { app: 'db' }) });
      const web = newInformer<V1ConfigMap>(kc, { ...CM, labelSelector: 'app=web' }, { stop: h.stop() });
      const replica = new Replica(web);
      const t = trackEvents(web);
      expect(await web.waitUntilSynced()).toBe(true);
      t.expectOrdered('add/default/web1');
      await core.patchNamespacedConfigMap(
        { name: 'web1', namespace: 'default', body: { metadata: { labels: { app: 'db' } } } },
        mergePatch,
      );
      await until(() => web.list().length === 0, 'relabelled out');
      t.expectOrdered('delete/default/web1');
      await core.patchNamespacedConfigMap(
        { name: 'db1', namespace: 'default', body: { metadata: { labels: { app: 'web' } } } },
        mergePatch,
      );
      await until(() => web.getKey('default/db1') !== undefined, 'relabelled in');
      t.expectOrdered('add/default/db1');
      // A change to an object that matches neither before nor after is never seen.
      await core.patchNamespacedConfigMap({ name: 'web1', namespace: 'default', body: { data: { x: '1' } } }, mergePatch);
      await core.patchNamespacedConfigMap({ name: 'db1', namespace: 'default', body: { data: { y: '1' } } }, mergePatch);
      await until(() => web.getKey('default/db1')?.data?.y === '1', 'update db1');
      t.expectOrdered('update/default/db1');
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap', { labelSelector: 'app=web' }), 'label selector');
    });

    it('should follow a field selector (pods by status.phase), as status changes move pods in and out', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      const pod = (name: string): V1Pod => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      });
      const phase = (name: string, p: string) =>
        core.patchNamespacedPodStatus({ name, namespace: 'default', body: { status: { phase: p } } }, mergePatch);
      await core.createNamespacedPod({ namespace: 'default', body: pod('p1') });
      await core.createNamespacedPod({ namespace: 'default', body: pod('p2') });
      await phase('p1', 'Running');
      const running = newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod', fieldSelector: 'status.phase=Running' }, { stop: h.stop() });
      const replica = new Replica(running);
      const t = trackEvents(running);
      expect(await running.waitUntilSynced()).toBe(true);
      t.expectOrdered('add/default/p1');
      await phase('p2', 'Running');
      await until(() => running.list().length === 2, 'p2 running');
      await phase('p1', 'Failed');
      await until(() => running.getKey('default/p1') === undefined, 'p1 failed');
      t.expectOrdered('add/default/p2', 'delete/default/p1');
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'Pod', { fieldSelector: 'status.phase=Running' }), 'field selector');
    });
  });

  describe('transactions', () => {
    it('should apply a LIST of several pages as one batch, and sync only once it is complete', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      for (let i = 0; i < 7; i++) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(`p${i}`) });
      // The third page fails once: what the first two pages brought must not show, and nothing may sync.
      let thirdPageRequested = false;
      server.failNext(1, 500, {
        match: (m, p) => {
          const page = isList('/configmaps')(m, p) && p.includes('continue=') && requestsTo(server, 'GET', 'continue=').length >= 2;
          if (page) thirdPageRequested = true;
          return page;
        },
      });
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), pageSize: 2, backoff: { initialMs: 200 } });
      const seenAtError: Array<{ size: number; synced: boolean }> = [];
      const sub = cms.errors$.subscribe(() => seenAtError.push({ size: cms.list().length, synced: cms.hasSynced() }));
      const batches: string[][] = [];
      const reg = cms.registerBatch((b) => {
        batches.push(b.map((e) => `${e.type}/${e.new?.metadata?.name}`));
      });
      expect(cms.hasSynced()).toBe(false);
      expect(await cms.waitUntilSynced()).toBe(true);
      sub.unsubscribe();
      expect(thirdPageRequested).toBe(true);
      expect(seenAtError).toEqual([{ size: 0, synced: false }]);
      expect(batches).toEqual([['add/p0', 'add/p1', 'add/p2', 'add/p3', 'add/p4', 'add/p5', 'add/p6']]);
      expect(reg.hasSynced()).toBe(true);
      // 4 pages, the failed attempt's pages, then 4 pages again.
      const lists = requestsTo(server, 'GET', '/api/v1/configmaps?');
      expect(lists.filter((p) => p.includes('limit=2')).length).toBeGreaterThanOrEqual(4 + 2);
      expect(informerStats(cms)).toMatchObject({ lists: 2, errors: 1, relists: 0 });
    });

    it('should restart a paginated LIST whose continue token expired, and apply the result as one batch', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      for (let i = 0; i < 6; i++) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(`p${i}`) });
      server.delayNext(1, 300, { match: (m, p) => isList('/configmaps')(m, p) && p.includes('continue=') });
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), pageSize: 2 });
      const replica = new Replica(cms);
      // While page 2 is held, the world changes and history is compacted: the token is now too old.
      await until(() => requestsTo(server, 'GET', 'continue=').length === 1, 'page 2 requested');
      await core.deleteNamespacedConfigMap({ name: 'p0', namespace: 'default' });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('p9') });
      server.compact();
      expect(await cms.waitUntilSynced()).toBe(true);
      expect(replica.batches).toHaveLength(1);
      expect(Object.keys(replica.versions()).sort()).toEqual([
        'default/p1',
        'default/p2',
        'default/p3',
        'default/p4',
        'default/p5',
        'default/p9',
      ]);
      expect(replica.errors).toEqual([]);
      // The LIST started over (a first page twice) inside one list attempt.
      const firstPages = server.requests.filter((r) => isList('/configmaps')(r.method, r.path) && !r.path.includes('continue='));
      expect(firstPages).toHaveLength(2);
      expect(informerStats(cms)).toMatchObject({ lists: 1, errors: 0 });
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'expired continue token');
    });

    it('should flush a burst of watch events as one transaction', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      const manual = new ManualScheduler();
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), scheduler: manual });
      const replica = new Replica(cms);
      expect(await cms.waitUntilSynced()).toBe(true);
      await Promise.all(Array.from({ length: 25 }, (_, i) => core.createNamespacedConfigMap({ namespace: 'default', body: cm(`b${i}`) })));
      await core.patchNamespacedConfigMap({ name: 'b3', namespace: 'default', body: { data: { x: '1' } } }, mergePatch);
      await core.deleteNamespacedConfigMap({ name: 'b4', namespace: 'default' });
      await until(() => informerStats(cms)!.watchEvents === 27, 'the burst to arrive');
      // Everything is buffered: nothing applied, nothing delivered.
      expect(cms.list()).toEqual([]);
      expect(replica.batches).toEqual([]);
      expect(manual.pending()).toEqual([0]);
      manual.advance(0);
      expect(replica.batches).toHaveLength(1);
      // add+update fold into one add; add+delete into nothing.
      expect(replica.batches[0]).toHaveLength(24);
      expect(replica.batches[0]!.every((e) => e.type === 'add')).toBe(true);
      expect(cms.getKey('default/b3')?.data).toEqual({ x: '1' });
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'burst');
    });
  });

  describe('keys', () => {
    it('should skip and report objects its key option rejects, from the LIST and from the watch alike', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('good', {}, { app: 'one' }) });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('bad') });
      // Keyed by the app label; an object without one has no key.
      const byApp = (o: V1ConfigMap): string => {
        const app = o.metadata?.labels?.['app'];
        if (app === undefined) throw new Error(`${o.metadata?.name} has no app label`);
        return app;
      };
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), key: byApp as (o: unknown) => string });
      const errors: string[] = [];
      cms.errors$.subscribe((e) => errors.push(e.message));
      expect(await cms.waitUntilSynced()).toBe(true);
      expect(cms.list().map((o) => o.metadata?.name)).toEqual(['good']);
      expect(cms.getKey('one')?.metadata?.name).toBe('good');
      await until(() => errors.length === 1, 'the LIST error');
      expect(errors[0]).toMatch(/bad has no app label/);
      // The watch goes on: another keyless object is reported, a keyed one arrives.
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('bad2') });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('good2', {}, { app: 'two' }) });
      await until(() => cms.getKey('two') !== undefined && errors.length === 2, 'the watch to go on');
      expect(errors[1]).toMatch(/bad2 has no app label/);
    });
  });

  describe('stop', () => {
    it('should close the watch on stop and keep the last state readable', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
      const stop = new AbortController();
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: stop.signal });
      expect(await cms.waitUntilSynced()).toBe(true);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
      await until(() => cms.list().length === 2 && server.openWatches() === 1, 'b and an open watch');
      stop.abort();
      await until(() => server.openWatches() === 0, 'the watch to close');
      expect(informerStats(cms)?.state).toBe('stopped');
      const requestsAtStop = server.requests.length;
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
      server.dropWatches();
      await new Promise((r) => setTimeout(r, 150));
      expect(cms.getKey('default/c')).toBeUndefined();
      expect(Object.keys(versions(cms.list())).sort()).toEqual(['default/a', 'default/b']);
      expect(cms.getKey('default/a')?.metadata?.name).toBe('a');
      // The only request since the stop is our own create.
      expect(server.requests.slice(requestsAtStop).map((r) => r.method)).toEqual(['POST']);
    });

    it('should ignore a LIST that answers after stop, and never watch', async () => {
      const server = await h.server();
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
      server.delayNext(1, 300, { match: isList('/configmaps') });
      const stop = new AbortController();
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: stop.signal });
      const t = trackEvents(cms);
      await until(() => server.requests.some((r) => r.method === 'GET'), 'the LIST to be under way');
      stop.abort();
      await new Promise((r) => setTimeout(r, 500));
      expect(cms.list()).toEqual([]);
      expect(cms.hasSynced()).toBe(false);
      t.expectOrdered();
      expect(informerStats(cms)).toMatchObject({ state: 'stopped', lists: 1, watches: 0, errors: 0 });
      expect(server.openWatches()).toBe(0);
    });

    it('should do nothing when built with a stop signal that is already aborted', async () => {
      const server = await h.server();
      const stop = new AbortController();
      stop.abort();
      const cms = newInformer(server.kubeConfig(), CM, { stop: stop.signal });
      await new Promise((r) => setTimeout(r, 50));
      expect(server.requests).toEqual([]);
      expect(cms.list()).toEqual([]);
      expect(await cms.waitUntilSynced(AbortSignal.timeout(50))).toBe(false);
    });
  });
});
