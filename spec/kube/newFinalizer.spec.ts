import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { setLogger, UsageError, newStaticCollection } from '../../src/index.js';
import { newFinalizer, newInformer, type ReconcileError, type Reconciler } from '../../src/kube/index.js';
import { Harness, until } from '../helpers/kube.js';

const FINALIZER = 'example.com/cleanup';
const OTHER = 'other.example.com/keep';
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

describe('newFinalizer', () => {
  const h = new Harness();
  const running: Reconciler[] = [];
  afterEach(async () => {
    for (const r of running.splice(0)) r.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  async function setup(maps: Array<{ name: string; managed: boolean; finalizers?: string[] }>) {
    const server = await h.server();
    const kc = server.kubeConfig();
    const api = kc.makeApiClient(CoreV1Api);
    for (const m of maps) {
      await api.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: m.name, labels: { managed: String(m.managed) }, finalizers: m.finalizers } },
      });
    }
    return { server, kc, api };
  }

  function finalizer(kc: KubeConfig, finalize: (cm: V1ConfigMap) => Promise<void>) {
    const stop = h.stop();
    const maps = newInformer<V1ConfigMap>(kc, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' }, { stop });
    const f = newFinalizer(kc, maps, {
      name: FINALIZER,
      finalize,
      selects: (cm) => cm.metadata?.labels?.managed === 'true',
      backoff: { initialMs: 10, maxMs: 50 },
      stop,
    });
    running.push(f);
    const errors: ReconcileError[] = [];
    f.errors$.subscribe((e) => errors.push(e));
    return { maps, f, errors };
  }

  const read = (api: CoreV1Api, name: string) => api.readNamespacedConfigMap({ namespace: 'default', name });
  const exists = async (api: CoreV1Api, name: string): Promise<boolean> => {
    try {
      await read(api, name);
      return true;
    } catch {
      return false;
    }
  };
  const finalizersOf = async (api: CoreV1Api, name: string) => (await read(api, name)).metadata?.finalizers ?? [];

  it('should add its finalizer to the objects it selects, after any already there, and to no other', async () => {
    const { kc, api } = await setup([
      { name: 'a', managed: true },
      { name: 'b', managed: true, finalizers: [OTHER] },
      { name: 'c', managed: false },
    ]);
    finalizer(kc, () => Promise.resolve());
    await until(async () => (await finalizersOf(api, 'a')).length === 1 && (await finalizersOf(api, 'b')).length === 2, 'finalizers added');
    expect(await finalizersOf(api, 'a')).toEqual([FINALIZER]);
    expect(await finalizersOf(api, 'b')).toEqual([OTHER, FINALIZER]);
    expect(await finalizersOf(api, 'c')).toEqual([]);
  });

  it('should finalize a deleted object once, then remove only its own finalizer (the object goes when the last one does)', async () => {
    const { kc, api } = await setup([
      { name: 'a', managed: true },
      { name: 'b', managed: true, finalizers: [OTHER] },
    ]);
    const finalized: string[] = [];
    const { f } = finalizer(kc, (cm) => {
      expect(cm.metadata?.deletionTimestamp).toBeDefined();
      finalized.push(cm.metadata!.name!);
      return Promise.resolve();
    });
    await until(
      async () => (await finalizersOf(api, 'b')).includes(FINALIZER) && (await finalizersOf(api, 'a')).includes(FINALIZER),
      'added',
    );
    await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'a' });
    await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'b' });
    // Deleting marks, while finalizers remain.
    expect((await read(api, 'b')).metadata?.deletionTimestamp).toBeDefined();
    await until(async () => !(await exists(api, 'a')) && (await finalizersOf(api, 'b')).length === 1, 'a gone, b finalized');
    expect(await finalizersOf(api, 'b')).toEqual([OTHER]);
    expect(finalized.sort()).toEqual(['a', 'b']);
    // The other controller lets go: now it goes.
    await api.patchNamespacedConfigMap(
      { namespace: 'default', name: 'b', body: [{ op: 'remove', path: '/metadata/finalizers/0' }] },
      jsonPatch,
    );
    await until(async () => !(await exists(api, 'b')), 'b gone');
    await f.idle();
    expect(finalized).toHaveLength(2);
  });

  it('should retry a failing finalize with backoff, keeping the finalizer until it succeeds', async () => {
    const { kc, api } = await setup([{ name: 'a', managed: true }]);
    let calls = 0;
    const { errors } = finalizer(kc, () => (++calls < 3 ? Promise.reject(new Error('external system down')) : Promise.resolve()));
    await until(async () => (await finalizersOf(api, 'a')).includes(FINALIZER), 'added');
    await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'a' });
    await until(() => errors.length === 2, 'two failures');
    expect(await finalizersOf(api, 'a')).toEqual([FINALIZER]);
    await until(async () => !(await exists(api, 'a')), 'a gone');
    expect(calls).toBe(3);
    expect(errors.map((e) => [e.key, e.attempt])).toEqual([
      ['default/a', 1],
      ['default/a', 2],
    ]);
    expect(errors[0]!.message).toMatch(/Finalizer\[example.com\/cleanup\]: reconcile of default\/a failed .*external system down/);
  });

  it("should never remove another controller's finalizer when the list shifts under it, nor finalize twice", async () => {
    const { kc, api } = await setup([{ name: 'a', managed: true, finalizers: [OTHER] }]);
    let calls = 0;
    const { errors } = finalizer(kc, async () => {
      calls++;
      // Another controller removes its finalizer (index 0) while we clean up: our view's index 1 is stale.
      await api.patchNamespacedConfigMap(
        { namespace: 'default', name: 'a', body: [{ op: 'remove', path: '/metadata/finalizers/0' }] },
        jsonPatch,
      );
    });
    await until(async () => (await finalizersOf(api, 'a')).includes(FINALIZER), 'added');
    await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'a' });
    await until(async () => !(await exists(api, 'a')), 'a gone');
    expect(calls).toBe(1);
    // The removal built from the stale view (index 1) was refused by its `test` op, and retried on the new object.
    expect(errors).toHaveLength(1);
    expect(errors[0]!.cause).toMatchObject({ statusCode: 422 });
    expect(errors[0]!.message).toMatch(/test \/metadata\/finalizers\/1/);
  });

  it('should retry injected 5xx answers to its patches', async () => {
    const { server, kc, api } = await setup([{ name: 'a', managed: true }]);
    server.failNext(2, 503, { match: (m: string, p: string) => m === 'PATCH' && p.includes('/configmaps/a') });
    const { errors } = finalizer(kc, () => Promise.resolve());
    await until(async () => (await finalizersOf(api, 'a')).includes(FINALIZER), 'added');
    expect(errors.map((e) => e.attempt)).toEqual([1, 2]);
  });

  it('should refuse a bad name or finalize, naming the collection and the value', () => {
    const c = newStaticCollection<V1ConfigMap>([], { name: 'Maps' });
    const kc = {} as KubeConfig;
    expect(() => newFinalizer(kc, c, { name: 'bad name!', finalize: () => Promise.resolve() })).toThrow(UsageError);
    expect(() => newFinalizer(kc, c, { name: '', finalize: () => Promise.resolve() })).toThrow(
      /newFinalizer\(Maps\): name must be a qualified name/,
    );
    expect(() => newFinalizer(kc, c, { name: 'a.b/c', finalize: 3 as unknown as () => Promise<void> })).toThrow(
      /finalize must be a function/,
    );
  });
});
