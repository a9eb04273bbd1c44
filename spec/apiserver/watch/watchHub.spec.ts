import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  ListWatch,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { ManualClock, openWatch, request, waitFor, type RawWatch } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const CMS = '/api/v1/namespaces/default/configmaps';
/** What the watches here carry: ConfigMaps and namespaces, bookmarks (metadata only) and, on ERROR, a Status. */
type WatchObject = KubernetesObject & { reason?: string };

describe('watch', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  let clock: ManualClock;
  const open: RawWatch<WatchObject>[] = [];
  const watch = async (query: string, path = CMS): Promise<RawWatch<WatchObject>> => {
    const w = await openWatch<WatchObject>(server.url, `${path}?${query}`);
    open.push(w);
    return w;
  };
  const summary = (w: RawWatch<WatchObject>): string[] =>
    w.events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.metadata?.resourceVersion ?? e.object.reason}`);
  const cm = (name: string, labels: Record<string, string> = {}, namespace = 'default'): Promise<V1ConfigMap> =>
    core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels } } });

  beforeAll(async () => {
    clock = new ManualClock();
    server = await startApiServer({ clock, bookmarkIntervalMs: 1_000, expiredWatch: 'alternate' });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
  });
  afterEach(async () => {
    for (const w of open.splice(0)) w.close();
    await core.deleteCollectionNamespacedConfigMap({ namespace: 'default' });
    await core.deleteCollectionNamespacedConfigMap({ namespace: 'other' });
  });
  afterAll(() => server.close());

  it('should send synthetic ADDED events for existing objects, then live events', async () => {
    await cm('a');
    await cm('b');
    for (const query of ['watch=true', 'watch=1&resourceVersion=0', 'watch=true&resourceVersion=']) {
      const w = await watch(query);
      expect(w.status).toBe(200);
      await waitFor(() => w.events.length === 2, `initial events for ${query}`);
      expect(summary(w)).toEqual(['ADDED a', 'ADDED b']);
    }
    const w = open[0]!;
    await core.patchNamespacedConfigMap({ name: 'a', namespace: 'default', body: { data: { x: '1' } } }, merge);
    await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
    await waitFor(() => w.events.length === 4, 'live events');
    expect(summary(w)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
    expect(w.events[3]!.object.metadata!.resourceVersion).toBe(server.resourceVersion());
    expect(w.events[2]!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { x: '1' } });
  });

  it('should replay events after a resourceVersion from the history', async () => {
    const a = await cm('a');
    await cm('b');
    await core.patchNamespacedConfigMap({ name: 'a', namespace: 'default', body: { data: { v: '2' } } }, merge);
    await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
    await cm('c', {}, 'other');
    const w = await watch(`watch=true&resourceVersion=${a.metadata!.resourceVersion}`);
    await waitFor(() => w.events.length === 3, 'replayed events');
    expect(summary(w)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
    const all = await watch(`watch=true&resourceVersion=${a.metadata!.resourceVersion}`, '/api/v1/configmaps');
    await waitFor(() => all.events.length === 4, 'replayed events, all namespaces');
    expect(summary(all)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c']);
  });

  it('should answer 410 once compacted, alternately as HTTP status and in-stream ERROR', async () => {
    const a = await cm('a');
    await cm('b');
    server.compact();
    const old = a.metadata!.resourceVersion!;
    const asStatus = await request(server.url, 'GET', `${CMS}?watch=true&resourceVersion=${old}`);
    expect(asStatus.status).toBe(410);
    expect(asStatus.json).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
      metadata: {},
    });
    const inStream = await watch(`watch=true&resourceVersion=${old}`);
    expect(inStream.status).toBe(200);
    await inStream.ended;
    expect(inStream.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', reason: 'Expired', code: 410 }) }]);
    // The counter at compaction and later stay valid.
    const current = await watch(`watch=true&resourceVersion=${server.resourceVersion()}`);
    await cm('c');
    await waitFor(() => current.events.length === 1, 'event after compaction');
    expect(summary(current)).toEqual(['ADDED c']);
  });

  it('should surface both 410 forms through client-node Watch', async () => {
    await cm('a');
    const old = String(Number(server.resourceVersion()) - 1);
    server.compact();
    const results: string[] = [];
    for (let i = 0; i < 2; i++) {
      let done: unknown = 'pending';
      await new Watch(server.kubeConfig()).watch(
        CMS,
        { resourceVersion: old },
        (type, obj: { code?: number }) => results.push(`${type} ${obj.code}`),
        (err: { statusCode?: number } | null) => {
          done = err;
        },
      );
      await waitFor(() => done !== 'pending', 'watch done');
      results.push(done ? `done ${(done as { statusCode?: number }).statusCode}` : 'done ok');
    }
    // Order depends on where the alternation stands; both forms must appear once.
    expect(results.sort()).toEqual(['ERROR 410', 'done 410', 'done ok'].sort());
  });

  it('should send a bookmark promptly and then periodically when allowed, never otherwise', async () => {
    await cm('a');
    const w = await watch('watch=true&allowWatchBookmarks=true');
    const plain = await watch('watch=true');
    await waitFor(() => w.events.length === 2, 'initial event and bookmark');
    expect(w.events[1]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: server.resourceVersion() } },
    });
    clock.advance(1_000);
    clock.advance(1_000);
    await waitFor(() => w.events.length === 4, 'periodic bookmarks');
    expect(w.events.slice(2).map((e) => e.type)).toEqual(['BOOKMARK', 'BOOKMARK']);
    await cm('b');
    await waitFor(() => plain.events.length === 2, 'plain watch events');
    expect(summary(plain)).toEqual(['ADDED a', 'ADDED b']);
  });

  it('should end the initial events of sendInitialEvents with an annotated bookmark', async () => {
    await cm('a');
    const w = await watch('watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan');
    await waitFor(() => w.events.length === 2, 'initial events');
    expect(w.events[1]!.object.metadata!.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('should close the stream after timeoutSeconds', async () => {
    const w = await watch('watch=true&timeoutSeconds=5');
    let ended = false;
    void w.ended.then(() => {
      ended = true;
    });
    clock.advance(4_000);
    await cm('a');
    await waitFor(() => w.events.length === 1, 'event before the timeout');
    expect(ended).toBe(false);
    clock.advance(1_000);
    await w.ended;
    expect(server.openWatches()).toBe(0);
  });

  it('should turn selector transitions into ADDED and DELETED', async () => {
    const w = await watch('watch=true&labelSelector=app%3Dweb');
    await cm('x', { app: 'db' });
    await core.patchNamespacedConfigMap({ name: 'x', namespace: 'default', body: { metadata: { labels: { app: 'web' } } } }, merge);
    await core.patchNamespacedConfigMap({ name: 'x', namespace: 'default', body: { data: { d: '1' } } }, merge);
    await core.patchNamespacedConfigMap({ name: 'x', namespace: 'default', body: { metadata: { labels: { app: 'db' } } } }, merge);
    const leftAt = server.resourceVersion();
    await core.deleteNamespacedConfigMap({ name: 'x', namespace: 'default' });
    await cm('y', { app: 'web' });
    await waitFor(() => w.events.length === 4, 'transition events');
    expect(summary(w)).toEqual(['ADDED x', 'MODIFIED x', 'DELETED x', 'ADDED y']);
    // The DELETED for "stopped matching" carries the old labels and the update's resourceVersion.
    expect(w.events[2]!.object.metadata!.labels).toEqual({ app: 'web' });
    expect(w.events[2]!.object.metadata!.resourceVersion).toBe(leftAt);
  });

  it('should filter by field selector and by name', async () => {
    const byField = await watch('watch=true&fieldSelector=metadata.name%3Dn1');
    const byPath = await watch('watch=1', `${CMS}/n1`);
    const legacy = await watch('', '/api/v1/watch/namespaces/default/configmaps');
    await cm('n0');
    await cm('n1');
    await waitFor(() => byField.events.length === 1 && byPath.events.length === 1 && legacy.events.length === 2, 'filtered events');
    expect(summary(byField)).toEqual(['ADDED n1']);
    expect(summary(byPath)).toEqual(['ADDED n1']);
    expect(summary(legacy)).toEqual(['ADDED n0', 'ADDED n1']);
  });

  it('should cut every stream on dropWatches', async () => {
    const w1 = await watch('watch=true');
    const w2 = await watch('watch=true', '/api/v1/namespaces');
    await waitFor(() => server.openWatches() >= 2, 'open watches');
    server.dropWatches();
    await Promise.all([w1.ended, w2.ended]);
    expect(server.openWatches()).toBe(0);
  });

  it('should end every stream with an in-stream ERROR carrying the Status on failWatches', async () => {
    await cm('a');
    const w1 = await watch('watch=true');
    const w2 = await watch('watch=true', '/api/v1/namespaces');
    await waitFor(() => w1.events.length === 1 && server.openWatches() >= 2, 'open watches');
    server.failWatches(503);
    await Promise.all([w1.ended, w2.ended]);
    expect(server.openWatches()).toBe(0);
    expect(summary(w1)).toEqual(['ADDED a', 'ERROR ServiceUnavailable']);
    expect(w1.events[1]!.object).toMatchObject({ kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable' });
    expect(w2.events.at(-1)!.object).toMatchObject({ kind: 'Status', code: 503 });
    // A watch opened afterwards is not affected: the fault hits the streams open at the call.
    const w3 = await watch('watch=true');
    await waitFor(() => w3.events.length === 1, 'initial events after the fault');
    expect(summary(w3)).toEqual(['ADDED a']);
    expect(() => server.failWatches(410)).toThrow(RangeError);
    expect(() => server.failWatches(200)).toThrow(RangeError);
  });
});

describe('client-node informers against the server', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  // The server's clock only drives injected delays here: the informers keep their own real time.
  const clock = new ManualClock();
  beforeAll(async () => {
    server = await startApiServer({ expiredWatch: 'alternate', clock });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  const cached = (inf: { list(): ReadonlyArray<V1ConfigMap> }): string[] =>
    inf
      .list()
      .map((c) => c.metadata!.name!)
      .sort();

  it('should converge after dropWatches by reconnecting from its resourceVersion', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'i1' } } });
    const inf = makeInformer<V1ConfigMap>(server.kubeConfig(), CMS, () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const errors: unknown[] = [];
    let stopped = false;
    inf.on('error', (e) => {
      if (!stopped) errors.push(e);
    });
    await inf.start();
    expect(cached(inf)).toEqual(['i1']);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'i2' } } });
    await waitFor(() => cached(inf).length === 2, 'informer sees i2');
    const lists = server.requests.filter((r) => r.method === 'GET' && !r.path.includes('watch')).length;
    server.dropWatches();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'i3' } } });
    await core.deleteNamespacedConfigMap({ name: 'i1', namespace: 'default' });
    await waitFor(() => cached(inf).join() === 'i2,i3', 'informer converges after the cut');
    expect(server.requests.filter((r) => r.method === 'GET' && !r.path.includes('watch')).length).toBe(lists);
    expect(server.requests.filter((r) => r.path.includes('watch=true')).length).toBeGreaterThanOrEqual(2);
    await waitFor(() => server.openWatches() === 1, 'the informer watching again');
    stopped = true;
    await inf.stop();
    expect(errors).toEqual([]);
  });

  it('should converge after compact by relisting on both kinds of 410', async () => {
    // The informer's own reconnect backoff (1 s, 2 s, 4 s …) is not under test: shorten it, and unref it
    // so a backoff pending at stop() cannot hold the test process open.
    const delayFn = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        setTimeout(resolve, Math.min(ms, 20)).unref();
      });
    const inf = new ListWatch<V1ConfigMap>(
      CMS,
      new Watch(server.kubeConfig()),
      () => core.listNamespacedConfigMap({ namespace: 'default' }),
      false,
      undefined,
      undefined,
      { delayFn },
    );
    const errors: unknown[] = [];
    let stopped = false;
    inf.on('error', (e) => {
      if (!stopped) errors.push(e);
    });
    await inf.start();
    const count = (pred: (path: string) => boolean): number => server.requests.filter((r) => r.method === 'GET' && pred(r.path)).length;
    const isWatch = (p: string): boolean => p.includes('watch=true');
    for (const round of [1, 2]) {
      const before = cached(inf);
      const watches = count(isWatch);
      const lists = count((p) => !isWatch(p));
      // Hold the informer's reconnect (until the virtual clock moves) while the history it needs goes away.
      server.delayNext(1, 1_000, { match: (_m, p) => isWatch(p) });
      server.dropWatches();
      await waitFor(() => count(isWatch) > watches, 'reconnect attempt');
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `c${round}` } } });
      if (before.length) await core.deleteNamespacedConfigMap({ name: before[0]!, namespace: 'default' });
      server.compact();
      clock.advance(1_000);
      const expected = [...before.slice(1), `c${round}`].sort();
      await waitFor(() => cached(inf).join() === expected.join(), `informer relists (round ${round})`);
      // It got a 410 (HTTP in one round, in-stream in the other), relisted, and watches again after its backoff.
      expect(count((p) => !isWatch(p))).toBe(lists + 1);
      await waitFor(() => server.openWatches() === 1, `the informer watching again (round ${round})`);
    }
    stopped = true;
    await inf.stop();
    expect(errors).toEqual([]);
  });
});
