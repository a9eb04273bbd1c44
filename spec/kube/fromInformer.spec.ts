// fromInformer over client-node's own makeInformer, against the embedded API server.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, makeInformer, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { setLogger, newCollection } from '../../src/index.js';
import { fromInformer, type InformerLike } from '../../src/kube/index.js';
import { Harness, Replica, until } from '../helpers/kube.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

const cm = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { v: '1' },
});
const names = (c: { list(): KubernetesObject[] }) =>
  c
    .list()
    .map((o) => o.metadata!.name)
    .sort();

describe('fromInformer', () => {
  const h = new Harness();
  const started: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((i) => i.stop()));
    await h.release();
  });
  beforeAll(() => setLogger({}));
  afterAll(() => setLogger());

  async function setup() {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    started.push(informer);
    return { server, core, informer };
  }

  it('should be synced with the first LIST when wrapped before start, then follow adds, updates and deletes', async () => {
    const { core, informer } = await setup();
    const cms = fromInformer(informer, { name: 'wrapped', stop: h.stop() });
    const replica = new Replica(cms);
    expect(cms.hasSynced()).toBe(false);
    void informer.start();
    expect(await cms.waitUntilSynced()).toBe(true);
    expect(names(cms)).toEqual(['a', 'b']);
    // The LIST's adds came as one batch, before sync.
    expect(replica.batches).toHaveLength(1);

    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    const a = await core.readNamespacedConfigMap({ namespace: 'default', name: 'a' });
    await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'a', body: { ...a, data: { v: '2' } } });
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'b' });
    await until(() => names(cms).join() === 'a,c' && cms.getKey('default/a')?.data?.v === '2', 'c added, a updated, b deleted');
    expect(replica.events().map((e) => `${e.type} ${(e.new ?? e.old)!.metadata!.name}`)).toEqual([
      'add a',
      'add b',
      'add c',
      'update a',
      'delete b',
    ]);
    expect(replica.violations).toEqual([]);
    expect(replica.errors).toEqual([]);
  });

  it('should be synced at once when the informer has listed already, starting from its cache', async () => {
    const { informer } = await setup();
    await informer.start();
    const cms = fromInformer(informer, { stop: h.stop() });
    expect(cms.hasSynced()).toBe(true);
    expect(names(cms)).toEqual(['a', 'b']);
  });

  it('should be synced when the promise given as synced resolves, for an informer without latestResourceVersion', async () => {
    const { informer } = await setup();
    // Only the list/on/off shape.
    const bare: InformerLike<V1ConfigMap> = {
      list: () => informer.list(),
      on: (verb: never, cb: never) => informer.on(verb, cb),
      off: (verb: never, cb: never) => informer.off(verb, cb),
    };
    const cms = fromInformer(bare, { stop: h.stop(), synced: informer.start() });
    expect(await cms.waitUntilSynced()).toBe(true);
    expect(names(cms)).toEqual(['a', 'b']);
  });

  it('should report the informer failing on errors$, and feed derived collections like any source', async () => {
    const { server, informer } = await setup();
    const cms = fromInformer(informer, { name: 'wrapped', stop: h.stop() });
    const upper = newCollection(cms, (_ctx, o) => ({ name: o.metadata!.name!.toUpperCase() }), { key: (o) => o.name, stop: h.stop() });
    const replica = new Replica(cms);
    void informer.start();
    expect(await upper.waitUntilSynced()).toBe(true);
    expect(
      upper
        .list()
        .map((o) => o.name)
        .sort(),
    ).toEqual(['A', 'B']);
    server.failWatches(500);
    await server.close();
    await until(() => replica.errors.length > 0, 'the failure on errors$');
    expect(replica.errors[0]!.message).toMatch(/wrapped/);
  });

  it('should remove its callbacks on stop and leave the informer running', async () => {
    const { core, informer } = await setup();
    const stop = new AbortController();
    const cms = fromInformer(informer, { stop: stop.signal });
    await informer.start();
    await until(() => cms.hasSynced(), 'synced');
    stop.abort();
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await until(() => informer.list().length === 3, 'the informer still running');
    expect(names(cms)).toEqual(['a', 'b']);
  });

  it('should schedule nothing for a callback the informer makes after stop', async () => {
    const { core, informer } = await setup();
    await informer.start();
    const stop = new AbortController();
    // The application's own callback, registered first, stops the collection: client-node still calls ours,
    // from the copy of its callbacks it took for this object.
    informer.on('add', () => stop.abort());
    const flushes = new ManualScheduler();
    const cms = fromInformer(informer, { stop: stop.signal, scheduler: flushes, timerScheduler: new ManualScheduler() });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await until(() => stop.signal.aborted, 'the add callback');
    expect(flushes.pending()).toEqual([]);
    expect(names(cms)).toEqual(['a', 'b']);
  });

  it('should start no LIST check for a connect the informer reports after stop', async () => {
    const timers = new ManualScheduler();
    const stop = new AbortController();
    const connects: Array<(err?: unknown) => void> = [() => stop.abort()];
    // An informer that, like client-node for adds, calls the callbacks it held when the event came.
    const informer: InformerLike<V1ConfigMap> = {
      list: () => [],
      on: (verb: string, cb: never) => void (verb === 'connect' && connects.push(cb)),
      off: (verb: string, cb: never) => void (verb === 'connect' && connects.splice(connects.indexOf(cb), 1)),
      latestResourceVersion: () => '',
    };
    fromInformer(informer, { stop: stop.signal, timerScheduler: timers });
    for (const cb of [...connects]) cb();
    expect(stop.signal.aborted).toBe(true);
    expect(timers.pending()).toEqual([]);
  });
});
