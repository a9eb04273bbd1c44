// newStatusWriter against a server that misbehaves: a PATCH that never answers, 429/503 with Retry-After. Time is virtual.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, type KubernetesObject } from '@kubernetes/client-node';
import { newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newStatusWriter, type StatusWriter, type StatusWriterOptions } from '../../src/kube/index.js';
import { Harness, installCrd, until } from '../helpers/kube.js';
import { startApiProxy, type ApiProxy, type ProxiedRequest } from '../helpers/apiProxy.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: { size: number };
}
const GROUP = 'example.com';
const isStatusPatch = (r: ProxiedRequest): boolean => r.method === 'PATCH' && r.path.includes('/status');

describe('newStatusWriter against a misbehaving server', () => {
  const h = new Harness();
  const proxies: ApiProxy[] = [];
  const writers: StatusWriter[] = [];
  afterEach(async () => {
    for (const w of writers.splice(0)) w.stop();
    await h.release();
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  /** One Gadget whose status should be `{ size: 1 }`; a writer through a proxy, on a virtual clock. */
  async function setup(opts: StatusWriterOptions = {}) {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    await api.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } },
    });
    const proxy = await startApiProxy(server.url);
    proxies.push(proxy);
    const clock = new ManualScheduler();
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: `${GROUP}/v1`, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, { size: number }, never>(gadgets, (_ctx, g) => ({ status: { size: g.spec.size } }), {
      stop,
    });
    const start = () => {
      const writer = newStatusWriter(proxy.kubeConfig(), statuses, { timerScheduler: clock, ...opts });
      writers.push(writer);
      return writer;
    };
    const patches = () => proxy.requests.filter(isStatusPatch);
    const written = async () =>
      (
        (await api.getNamespacedCustomObject({
          group: GROUP,
          version: 'v1',
          namespace: 'default',
          plural: 'gadgets',
          name: 'g1',
        })) as Gadget
      ).status;
    return { proxy, clock, start, patches, written };
  }

  it('should abort a PATCH that never answers after requestTimeoutMs (60 s by default) and retry it', async () => {
    const { proxy, clock, start, patches, written } = await setup();
    proxy.on(isStatusPatch, { kind: 'stall' }, 1);
    const writer = start();
    await until(() => patches().length === 1 && clock.pending().includes(60_000), 'the stalled PATCH and its timeout');
    clock.advance(60_000);
    await until(
      () => writer.stats.retries === 1,
      () => JSON.stringify(writer.stats),
    );
    expect(writer.stats).toMatchObject({ timeouts: 1, failures: 0, writes: 0 });
    await until(() => patches()[0]!.clientAborted, 'the stalled PATCH to be aborted');
    clock.advanceToNext();
    await until(
      () => writer.stats.writes === 1,
      () => JSON.stringify(writer.stats),
    );
    expect(await written()).toEqual({ size: 1 });
  });

  for (const status of [429, 503]) {
    it(`should wait as long as a ${status} asks (Retry-After) before patching again, capped at 30 s`, async () => {
      const { proxy, clock, start, patches, written } = await setup({ backoff: { initialMs: 100 } });
      const body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, message: 'slow down' };
      // Rules apply newest first: a day first (capped), then 4 s.
      proxy.on(isStatusPatch, { kind: 'answer', status, headers: { 'Retry-After': '4' }, body }, 1);
      proxy.on(isStatusPatch, { kind: 'answer', status, headers: { 'Retry-After': '86400' }, body }, 1);
      const writer = start();
      await until(
        () => writer.stats.retries === 1,
        () => JSON.stringify(writer.stats),
      );
      expect(clock.pending()).toEqual([30_000]);
      clock.advanceToNext();
      await until(
        () => writer.stats.retries === 2,
        () => JSON.stringify(writer.stats),
      );
      expect(clock.pending()).toEqual([4_000]);
      clock.advance(3_999);
      expect(patches()).toHaveLength(2);
      clock.advance(1);
      await until(
        () => writer.stats.writes === 1,
        () => JSON.stringify(writer.stats),
      );
      expect(await written()).toEqual({ size: 1 });
    });
  }
});
