import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { fetch, newStaticCollection, newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newStatusWriter, type StatusWriteError, type StatusWriter, type StatusWriterOptions } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Harness, installCrd, pause, requestsTo, until } from '../helpers/kube.js';

// Several writers share one status: each owns the fields it computes, and none undoes another's.

interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: Record<string, unknown>;
}

const GROUP = 'example.com';
const API_VERSION = `${GROUP}/v1`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const where = { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets' };

describe('newStatusWriter: status field ownership', () => {
  const h = new Harness();
  const writers: StatusWriter[] = [];
  afterEach(async () => {
    for (const w of writers.splice(0)) w.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {}, debug: () => {} }));
  afterAll(() => setLogger());

  async function setup(names: string[]): Promise<{ server: ApiServer; kc: KubeConfig; api: CustomObjectsApi }> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const name of names) {
      await api.createNamespacedCustomObject({
        ...where,
        body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name }, spec: { size: 1 } },
      });
    }
    return { server, kc, api };
  }

  const read = async (api: CustomObjectsApi, name: string): Promise<Gadget> =>
    (await api.getNamespacedCustomObject({ ...where, name })) as Gadget;
  const resize = (api: CustomObjectsApi, name: string, size: number): Promise<unknown> =>
    api.patchNamespacedCustomObject({ ...where, name, body: { spec: { size } } }, mergePatch);

  /** A writer over its own informer whose transform is `compute`. */
  function writer(kc: KubeConfig, name: string, compute: (g: Gadget) => Record<string, unknown>, opts: StatusWriterOptions = {}) {
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, Record<string, unknown>, never>(gadgets, (_ctx, g) => ({ status: compute(g) }), {
      name,
      stop,
    });
    const w = newStatusWriter(kc, statuses, { name, backoff: { initialMs: 5, maxMs: 50 }, maxAttempts: 100, ...opts });
    writers.push(w);
    return w;
  }

  for (const strategy of ['merge', 'apply'] as const) {
    it(`should let two ${strategy} writers owning different fields of one object converge and stop writing`, async () => {
      const { server, kc, api } = await setup(['g1', 'g2']);
      // Somebody else's field (kubectl, another controller) that neither writer computes.
      await api.patchNamespacedCustomObjectStatus({ ...where, name: 'g1', body: { status: { note: 'by hand' } } }, mergePatch);
      const a = writer(kc, 'sizer', (g) => ({ size: g.spec.size }), { strategy, fieldManager: 'sizer' });
      const b = writer(kc, 'doubler', (g) => ({ doubled: g.spec.size * 2 }), { strategy, fieldManager: 'doubler' });
      // Churn for a while: every resize gives both writers something to write, at once.
      for (let size = 2; size <= 11; size++) {
        await resize(api, size % 2 === 0 ? 'g1' : 'g2', size);
        await pause(20);
      }
      const settled = async (): Promise<boolean> => {
        const [g1, g2] = [await read(api, 'g1'), await read(api, 'g2')];
        return (
          g1.status?.size === g1.spec.size &&
          g1.status.doubled === g1.spec.size * 2 &&
          g2.status?.size === g2.spec.size &&
          g2.status.doubled === g2.spec.size * 2
        );
      };
      await until(settled, () => JSON.stringify([a.stats, b.stats]));
      await Promise.all([a.idle(), b.idle()]);
      const writes = requestsTo(server, 'PATCH', '/status').length;
      // No fight: once both are right, nobody writes again (give a fight every chance to show).
      await pause(300);
      expect(requestsTo(server, 'PATCH', '/status')).toHaveLength(writes);
      // Every PATCH but the hand-made one is a write or a stale view's 409 (merge: the other writer got there first).
      expect(a.stats.writes + a.stats.conflicts + b.stats.writes + b.stats.conflicts).toBe(writes - 1);
      // 10 resizes, 2 writers: at most one write each per resize, plus the initial one per object. A merge
      // patch from a stale view is refused (409, not a write); an apply is not guarded by the resourceVersion,
      // so a view that lags its own last write may repeat it once (a no-op on the server): some slack there.
      const bound = strategy === 'merge' ? 12 : 18;
      expect(a.stats.writes).toBeLessThanOrEqual(bound);
      expect(b.stats.writes).toBeLessThanOrEqual(bound);
      expect((await read(api, 'g1')).status).toEqual({ note: 'by hand', size: 10, doubled: 20 });
      expect(a.stats.failures + b.stats.failures).toBe(0);
    });
  }

  it('should remove a field it stops computing, and one it computes as null, leaving the fields of others', async () => {
    const { kc, api } = await setup(['g1']);
    await api.patchNamespacedCustomObjectStatus({ ...where, name: 'g1', body: { status: { note: 'by hand', stale: 1 } } }, mergePatch);
    const mode = newStaticCollection<string>(['full'], { name: 'Mode' });
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, Record<string, unknown>, never>(
      gadgets,
      (ctx, g) => {
        const full = fetch(ctx, mode).includes('full');
        return { status: full ? { size: g.spec.size, extra: 'x' } : { size: g.spec.size, stale: null } };
      },
      { name: 'Statuses', stop },
    );
    const w = newStatusWriter(kc, statuses, {});
    writers.push(w);
    await until(async () => (await read(api, 'g1')).status?.extra === 'x', 'the first write');
    expect((await read(api, 'g1')).status).toEqual({ note: 'by hand', stale: 1, size: 1, extra: 'x' });
    // The transform drops `extra` and asks `stale` to go: the next write removes both, and only those.
    mode.updateObject('lean');
    mode.deleteObject('full');
    await resize(api, 'g1', 2);
    await until(async () => (await read(api, 'g1')).status?.size === 2, 'the second write');
    expect((await read(api, 'g1')).status).toEqual({ note: 'by hand', size: 2 });
  });

  it('should report a server-side apply conflict naming the other manager, and take the field only with force', async () => {
    const { server, kc, api } = await setup(['g1']);
    const owner = writer(kc, 'owner', (g) => ({ size: g.spec.size }), { strategy: 'apply', fieldManager: 'owner' });
    await until(async () => (await read(api, 'g1')).status?.size === 1, 'the owner to write');
    await owner.idle();
    const errors: StatusWriteError[] = [];
    const rival = writer(kc, 'rival', () => ({ size: 99 }), { strategy: 'apply', fieldManager: 'rival' });
    rival.errors$.subscribe((e) => errors.push(e));
    await until(
      () => errors.length === 1,
      () => JSON.stringify(rival.stats),
    );
    expect(errors[0]).toMatchObject({ key: 'default/g1', statusCode: 409, conflictingManagers: ['owner'] });
    expect(errors[0]!.message).toMatch(/rival: giving up on the status of default\/g1 after 1 attempt\(s\): .*owned by "owner"/);
    expect(rival.stats).toMatchObject({ conflicts: 1, failures: 1, writes: 0 });
    expect((await read(api, 'g1')).status?.size).toBe(1);
    expect(requestsTo(server, 'PATCH', 'fieldManager=rival').every((p) => !p.includes('force'))).toBe(true);
    rival.stop();
    owner.stop();
    const forced = writer(kc, 'forced', () => ({ size: 99 }), { strategy: 'apply', fieldManager: 'forced', force: true });
    await until(
      async () => (await read(api, 'g1')).status?.size === 99,
      () => JSON.stringify(forced.stats),
    );
    expect(requestsTo(server, 'PATCH', 'fieldManager=forced').every((p) => p.includes('force=true'))).toBe(true);
  });
});
