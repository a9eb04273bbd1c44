import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { DebugHandler, UsageError, newStaticCollection, newStatusCollection, setLogger, type Collection } from '../../src/index.js';
import { newInformer, newStatusWriter, type StatusWriter, type StatusWriterOptions } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Subscription, type SchedulerLike } from 'rxjs';
import { Harness, installCrd, pause, recordingScheduler, requestsTo, until } from '../helpers/kube.js';

interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: GadgetStatus;
}
interface GadgetStatus {
  size: number;
  ready: boolean;
  note?: string;
}

const GROUP = 'example.com';
const API_VERSION = `${GROUP}/v1`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const desired = (g: Gadget): GadgetStatus => ({ size: g.spec.size, ready: g.spec.size > 0 });
/** Timers on a virtual clock that only moves when told to. */
function virtualTimers(): { scheduler: SchedulerLike; advance(ms: number): void; pending(): number } {
  let now = 0;
  const queue: Array<{ at: number; run: () => void; closed: boolean }> = [];
  const scheduler = {
    now: () => now,
    schedule(work: (state?: unknown) => void, delay = 0, state?: unknown) {
      const item = { at: now + delay, run: () => work(state), closed: false };
      queue.push(item);
      return new Subscription(() => {
        item.closed = true;
      });
    },
  } as unknown as SchedulerLike;
  return {
    scheduler,
    advance(ms: number) {
      const target = now + ms;
      for (;;) {
        const due = queue
          .filter((i) => !i.closed && i.at <= target)
          .sort((a, b) => a.at - b.at)
          .at(0);
        if (due === undefined) break;
        due.closed = true;
        now = due.at;
        due.run();
      }
      now = target;
    },
    /** Work scheduled and neither run nor cancelled. */
    pending: () => queue.filter((i) => !i.closed).length,
  };
}

const isStatusPatch = (m: string, p: string): boolean => m === 'PATCH' && p.includes('/gadgets/') && p.includes('/status');

describe('newStatusWriter', () => {
  const h = new Harness();
  const writers: StatusWriter[] = [];
  afterEach(async () => {
    for (const w of writers.splice(0)) w.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  /** A server with the Gadget CRD and the given gadgets (name → size). */
  async function setup(sizes: Record<string, number>): Promise<{ server: ApiServer; kc: KubeConfig; api: CustomObjectsApi }> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const [name, size] of Object.entries(sizes)) await create(api, name, size);
    return { server, kc, api };
  }

  function create(api: CustomObjectsApi, name: string, size: number): Promise<unknown> {
    return api.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name }, spec: { size } },
    });
  }

  function resize(api: CustomObjectsApi, name: string, size: number): Promise<unknown> {
    return api.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name, body: { spec: { size } } },
      mergePatch,
    );
  }

  async function read(api: CustomObjectsApi, name: string): Promise<Gadget> {
    return (await api.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name })) as Gadget;
  }

  /** Gadgets informer → status collection. */
  function statusesOf(kc: KubeConfig) {
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(gadgets, (_ctx, g) => ({ status: desired(g) }), {
      name: 'Gadgets',
      stop,
    });
    return { gadgets, statuses };
  }

  /** Gadgets informer → status collection → writer. */
  function pipeline(kc: KubeConfig, opts: StatusWriterOptions = {}) {
    const { gadgets, statuses } = statusesOf(kc);
    const writer = newStatusWriter(kc, statuses, opts);
    writers.push(writer);
    return { gadgets, statuses, writer };
  }

  const patches = (server: ApiServer, name?: string): string[] =>
    requestsTo(server, 'PATCH', name === undefined ? '/status' : `/gadgets/${name}/status`);

  it('should write only statuses that differ from what the object carries', async () => {
    const { server, kc, api } = await setup({ g1: 3 });
    // g2 already carries exactly the status it should have.
    await create(api, 'g2', 4);
    await api.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g2', body: { status: { size: 4, ready: true } } },
      mergePatch,
    );
    const patchesBefore = patches(server).length;
    const { writer } = pipeline(kc);
    // g2 skipped at once; g1 written, then skipped when its new status comes back through the informer.
    await until(
      () => writer.stats.writes === 1 && writer.stats.skipped >= 2,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(patches(server).length - patchesBefore).toBe(1);
    expect(patches(server, 'g1')).toHaveLength(1);
    expect((await read(api, 'g1')).status).toEqual({ size: 3, ready: true });
    expect(writer.stats).toMatchObject({ writes: 1, conflicts: 0, retries: 0, failures: 0, notFound: 0, inFlight: 0, queued: 0 });

    // A spec change is written once; an unrelated metadata change writes nothing.
    await resize(api, 'g2', 0);
    await until(() => writer.stats.writes === 2, 'g2 rewritten');
    await api.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g1', body: { metadata: { labels: { x: 'y' } } } },
      mergePatch,
    );
    const skipped = writer.stats.skipped;
    await until(() => writer.stats.skipped > skipped, 'the relabel to be seen and skipped');
    await writer.idle();
    expect((await read(api, 'g2')).status).toEqual({ size: 0, ready: false });
    expect(patches(server).length - patchesBefore).toBe(2);
  });

  it('should land the status with a merge patch guarded by the resourceVersion', async () => {
    const { server, kc, api } = await setup({ g1: 2, g2: 5 });
    const { writer } = pipeline(kc, { strategy: 'merge' });
    await until(() => writer.stats.writes === 2, 'two writes');
    expect((await read(api, 'g1')).status).toEqual({ size: 2, ready: true });
    expect((await read(api, 'g2')).status).toEqual({ size: 5, ready: true });
    // Merge patches carry no field manager; the server names the Update after the client.
    expect(patches(server).every((p) => !p.includes('fieldManager'))).toBe(true);
    const fields = (await read(api, 'g1')).metadata?.managedFields ?? [];
    expect(fields.some((f) => f.operation === 'Update' && f.subresource === 'status')).toBe(true);
  });

  it('should land the status with server-side apply under its field manager, without force', async () => {
    const { server, kc, api } = await setup({ g1: 2, g2: 5 });
    const { writer } = pipeline(kc, { strategy: 'apply', fieldManager: 'gadget-controller' });
    await until(() => writer.stats.writes === 2, 'two writes');
    expect((await read(api, 'g1')).status).toEqual({ size: 2, ready: true });
    expect((await read(api, 'g2')).status).toEqual({ size: 5, ready: true });
    expect(patches(server).every((p) => p.includes('fieldManager=gadget-controller') && !p.includes('force'))).toBe(true);
    const fields = (await read(api, 'g1')).metadata?.managedFields ?? [];
    expect(fields).toContainEqual(expect.objectContaining({ manager: 'gadget-controller', operation: 'Apply', subresource: 'status' }));
    // Removing a field from the desired status removes it from the object (the manager owned it).
    await resize(api, 'g1', 0);
    await until(async () => (await read(api, 'g1')).status?.ready === false, 'g1 not ready');
  });

  it('should retry a real conflict (object changed between compute and write) until the status matches the new object', async () => {
    const { server, kc, api } = await setup({ g1: 1 });
    // Hold the first status PATCH at the server; change the object meanwhile: its resourceVersion moves on.
    server.delayNext(1, 800, { match: isStatusPatch });
    const { gadgets, writer } = pipeline(kc, { backoff: { initialMs: 100 } });
    await until(() => patches(server, 'g1').length === 1 && server.openWatches() === 1, 'the first PATCH to arrive');
    await resize(api, 'g1', 7);
    await until(() => gadgets.getKey('default/g1')?.spec.size === 7, 'the informer to see the new spec');
    // From now on the informer is blind for a while: whatever the writer does next, it does from this view.
    server.delayNext(1, 1500, { match: (m, p) => m === 'GET' && p.includes('/gadgets?watch=') });
    server.dropWatches();
    // The held PATCH (old resourceVersion) gets a 409; the status of the new spec is written right after,
    // and the retry of the stale write is dropped rather than sent later from a stale view (another 409).
    await until(async () => (await read(api, 'g1')).status?.size === 7, 'the status of the new spec');
    await writer.idle();
    await until(() => gadgets.getKey('default/g1')?.status?.size === 7, 'the informer to catch up');
    await writer.idle();
    expect((await read(api, 'g1')).status).toEqual({ size: 7, ready: true });
    expect(writer.stats).toMatchObject({ writes: 1, conflicts: 1, failures: 0 });
    expect(patches(server, 'g1')).toHaveLength(2);
  });

  it('should retry injected 409s with backoff until one succeeds', async () => {
    const { server, kc, api } = await setup({ g1: 1 });
    server.failNext(3, 409, { match: isStatusPatch });
    const timers = recordingScheduler(1);
    // The top of the jitter range, so the delays are the backoff itself.
    const { writer } = pipeline(kc, { timerScheduler: timers.scheduler, backoff: { random: () => 1 } });
    await until(
      () => writer.stats.writes === 1,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(writer.stats).toMatchObject({ writes: 1, conflicts: 3, retries: 3, failures: 0 });
    expect(timers.delays).toEqual([100, 200, 400]);
    expect(patches(server, 'g1')).toHaveLength(4);
    expect((await read(api, 'g1')).status).toEqual({ size: 1, ready: true });
  });

  it('should retry 5xx answers with growing backoff, and give up after maxAttempts', async () => {
    const { server, kc, api } = await setup({ g1: 1, g2: 2 });
    server.failNext(2, 503, { match: (m, p) => isStatusPatch(m, p) && p.includes('/g1/') });
    server.failNext(10, 500, { match: (m, p) => isStatusPatch(m, p) && p.includes('/g2/') });
    const timers = recordingScheduler(1);
    const { writer } = pipeline(kc, { timerScheduler: timers.scheduler, maxAttempts: 4, backoff: { random: () => 1 } });
    await until(
      () => writer.stats.writes === 1 && writer.stats.failures === 1,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect((await read(api, 'g1')).status).toEqual({ size: 1, ready: true });
    expect((await read(api, 'g2')).status).toBeUndefined();
    expect(patches(server, 'g1')).toHaveLength(3);
    expect(patches(server, 'g2')).toHaveLength(4);
    expect(writer.stats).toMatchObject({ writes: 1, failures: 1, retries: 2 + 3, conflicts: 0 });
    // g2's 500s back off 100, 200, 400; g1's 503s carry the server's Retry-After: 1, a floor over 100 and 200.
    expect([...timers.delays].sort((a, b) => a - b)).toEqual([100, 200, 400, 1000, 1000]);
  });

  it('should not write for an object deleted while a retry was pending', async () => {
    const { server, kc, api } = await setup({ g1: 1 });
    server.failNext(1, 503, { match: isStatusPatch });
    const { gadgets, writer } = pipeline(kc, { backoff: { initialMs: 400 } });
    await until(() => writer.stats.retries === 1, 'the first attempt to fail');
    await api.deleteNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g1' });
    await until(() => gadgets.list().length === 0, 'the informer to see the delete');
    await writer.idle();
    expect(patches(server, 'g1')).toHaveLength(1);
    expect(writer.stats).toMatchObject({ writes: 0, notFound: 0, failures: 0 });
  });

  it('should cancel a pending retry when stopped', async () => {
    const { server, kc } = await setup({ g1: 1 });
    server.failNext(1, 503, { match: isStatusPatch });
    const clock = virtualTimers();
    const { writer } = pipeline(kc, { timerScheduler: clock.scheduler, backoff: { initialMs: 100 } });
    await until(() => writer.stats.retries === 1, 'the first attempt to fail');
    expect(clock.pending()).toBeGreaterThan(0);
    writer.stop();
    // Nothing left scheduled: with real timers, a pending retry would hold a process open after stop.
    expect(clock.pending()).toBe(0);
    clock.advance(10_000);
    await pause(50);
    await writer.idle();
    expect(patches(server, 'g1')).toHaveLength(1);
    expect(writer.stats).toMatchObject({ writes: 0, retries: 1, inFlight: 0, queued: 0 });
  });

  it('should count a 404 as notFound, without retrying, when its view of the object is stale', async () => {
    const { server, kc } = await setup({});
    // The status collection still holds a gadget the server no longer has.
    const ghosts = newStaticCollection<Gadget>([
      {
        apiVersion: API_VERSION,
        kind: 'Gadget',
        metadata: { name: 'ghost', namespace: 'default', resourceVersion: '1' },
        spec: { size: 1 },
      },
    ]);
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(ghosts, (_ctx, g) => ({ status: desired(g) }));
    for (const strategy of ['merge', 'apply'] as const) {
      const writer = newStatusWriter(kc, statuses, { strategy, fieldManager: 'x' });
      writers.push(writer);
      await until(
        () => writer.stats.notFound === 1,
        () => JSON.stringify(writer.stats),
      );
      await writer.idle();
      expect(writer.stats).toMatchObject({ writes: 0, retries: 0, failures: 0, notFound: 1 });
      writer.stop();
    }
    expect(patches(server, 'ghost')).toHaveLength(2);
  });

  it('should never have more than `concurrency` PATCHes in flight', async () => {
    const sizes: Record<string, number> = {};
    for (let i = 0; i < 8; i++) sizes[`g${i}`] = i + 1;
    const { server, kc } = await setup(sizes);
    server.delayNext(8, 150, { match: isStatusPatch });
    const { writer } = pipeline(kc, { concurrency: 2 });
    let maxInFlight = 0;
    let violation = '';
    await until(() => {
      const s = writer.stats;
      const completed = s.writes + s.notFound + s.retries + s.failures;
      const arrived = patches(server).length;
      maxInFlight = Math.max(maxInFlight, s.inFlight);
      // Requests that reached the server but are not finished can never exceed the bound.
      if (s.inFlight > 2 || arrived - completed > 2) violation ||= `inFlight ${s.inFlight}, arrived ${arrived}, completed ${completed}`;
      return s.writes === 8;
    }, 'eight writes');
    expect(violation).toBe('');
    expect(maxInFlight).toBe(2);
    expect(patches(server)).toHaveLength(8);
  });

  it("should start no more than qps patches per second (on its timer scheduler's clock)", async () => {
    const { server, kc } = await setup({ g1: 1, g2: 2, g3: 3, g4: 4, g5: 5 });
    const clock = virtualTimers();
    const { writer } = pipeline(kc, { qps: 2, concurrency: 10, timerScheduler: clock.scheduler });
    // A full bucket: a burst of two, then one token every 500 ms.
    await until(
      () => writer.stats.writes === 2 && writer.stats.queued === 3,
      () => JSON.stringify(writer.stats),
    );
    await pause(50);
    expect(patches(server)).toHaveLength(2);
    clock.advance(499);
    await pause(50);
    expect(patches(server)).toHaveLength(2);
    clock.advance(1);
    await until(() => writer.stats.writes === 3, 'a third write');
    clock.advance(500);
    await until(() => writer.stats.writes === 4, 'a fourth write');
    clock.advance(500);
    await until(() => writer.stats.writes === 5, 'a fifth write');
    expect(patches(server)).toHaveLength(5);
  });

  it('should spend no rate-limit token on objects whose status is already right', async () => {
    const { server, kc, api } = await setup({});
    for (let i = 0; i < 6; i++) {
      await create(api, `g${i}`, i + 1);
      await api.patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: 'v1',
          namespace: 'default',
          plural: 'gadgets',
          name: `g${i}`,
          body: { status: { size: i + 1, ready: true } },
        },
        mergePatch,
      );
    }
    await create(api, 'needs', 9);
    const before = patches(server).length;
    // One token per second, on a clock that never moves: only a single request can ever start.
    const clock = virtualTimers();
    const { statuses, writer } = pipeline(kc, { qps: 1, timerScheduler: clock.scheduler });
    await statuses.waitUntilSynced();
    await until(
      () => writer.stats.writes === 1 && writer.stats.skipped >= 7,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(patches(server).slice(before)).toEqual([expect.stringContaining('/gadgets/needs/status')]);
  });

  it('should drop a queued write without spending a token when its object is deleted while it waits', async () => {
    const { server, kc, api } = await setup({ g1: 1, g2: 2, g3: 3 });
    // One token, then one per second on a clock that moves only when told: g2 and g3 wait in the queue.
    const clock = virtualTimers();
    const { gadgets, writer } = pipeline(kc, { qps: 1, concurrency: 10, timerScheduler: clock.scheduler });
    await until(
      () => writer.stats.writes === 1 && writer.stats.queued === 2,
      () => JSON.stringify(writer.stats),
    );
    await api.deleteNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g2' });
    await until(() => gadgets.getKey('default/g2') === undefined, 'the informer to see the delete');
    // The next token goes to g3: g2 is settled on the way, for nothing.
    clock.advance(1000);
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(patches(server, 'g2')).toEqual([]);
    expect(
      patches(server)
        .map((p) => p.match(/gadgets\/(g\d)/)![1])
        .sort(),
    ).toEqual(['g1', 'g3']);
    expect(writer.stats).toMatchObject({ queued: 0, inFlight: 0, notFound: 0 });
  });

  it('should resolve idle() once nothing is queued, in flight or waiting for a retry', async () => {
    const { server, kc } = await setup({ g1: 1, g2: 2, g3: 3 });
    server.failNext(1, 503, { match: isStatusPatch });
    server.delayNext(3, 100, { match: isStatusPatch });
    const { statuses, writer } = pipeline(kc, { backoff: { initialMs: 150 } });
    await statuses.waitUntilSynced();
    await until(() => writer.stats.inFlight > 0 || writer.stats.writes > 0, 'the writer to start');
    await writer.idle();
    // idle() resolved: every write done (the failed one retried), nothing pending.
    expect(writer.stats).toMatchObject({ writes: 3, retries: 1, inFlight: 0, queued: 0 });
    expect(patches(server)).toHaveLength(4);
  });

  it('should stop: nothing new starts, the write in flight finishes, and a stop signal works the same', async () => {
    const { server, kc } = await setup({ g1: 1, g2: 2, g3: 3 });
    server.delayNext(1, 300, { match: isStatusPatch });
    const { writer } = pipeline(kc, { concurrency: 1 });
    await until(() => patches(server).length === 1, 'the first PATCH');
    writer.stop();
    expect(writer.stats.queued).toBe(0);
    await writer.idle();
    expect(writer.stats.writes).toBe(1);
    expect(patches(server)).toHaveLength(1);

    // With a stop signal: aborted later, or already aborted at construction.
    const { statuses } = statusesOf(kc);
    await statuses.waitUntilSynced();
    // Its informer shares the running one's LIST and WATCH: g1's written status arrives as a watch event.
    await until(() => statuses.list().filter((s) => s.obj.status === undefined).length === 2, 'g1 written, seen by the shared informer');
    const stop = new AbortController();
    stop.abort();
    const stillborn = newStatusWriter(kc, statuses, { stop: stop.signal });
    writers.push(stillborn);
    await pause(100);
    expect(patches(server)).toHaveLength(1);
    expect(stillborn.stats).toMatchObject({ writes: 0, inFlight: 0, queued: 0 });

    const later = new AbortController();
    server.delayNext(1, 300, { match: isStatusPatch });
    const third = newStatusWriter(kc, statuses, { stop: later.signal, concurrency: 1 });
    writers.push(third);
    await until(() => patches(server).length === 2, 'its first PATCH');
    later.abort();
    await third.idle();
    await pause(50);
    expect(patches(server)).toHaveLength(2);
    expect(third.stats).toMatchObject({ writes: 1, queued: 0 });
  });

  it('should refuse options under which it could never write', () => {
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(newStaticCollection<Gadget>([]), (_ctx, g) => ({
      status: desired(g),
    }));
    const kc = {} as KubeConfig;
    expect(() => newStatusWriter(kc, statuses, { concurrency: 0 })).toThrow(UsageError);
    expect(() => newStatusWriter(kc, statuses, { concurrency: 1.5 })).toThrow(/concurrency must be a positive integer/);
    expect(() => newStatusWriter(kc, statuses, { qps: 0 })).toThrow(/qps must be a positive number/);
    expect(() => newStatusWriter(kc, statuses, { maxAttempts: -1 })).toThrow(UsageError);
    expect(statuses.list()).toEqual([]);
  });

  it('should show its counters and queue in a debug dump while running, and leave the dump when stopped', async () => {
    const { kc } = await setup({ g1: 1 });
    const debug = new DebugHandler();
    const { statuses, writer } = pipeline(kc, { debugger: debug, name: 'gadget-status' });
    await until(() => writer.stats.writes === 1, 'a write');
    await writer.idle();
    const entry = debug.dump().find((d) => d.name === 'gadget-status');
    expect(entry?.state).toMatchObject({
      inputCollection: (statuses as Collection<unknown>).name,
      synced: true,
      outputs: { stats: { writes: 1, inFlight: 0, queued: 0 }, queued: [], inFlight: [] },
    });
    expect(writer.name).toBe('gadget-status');
    writer.stop();
    expect(debug.dump().find((d) => d.name === 'gadget-status')).toBeUndefined();
  });
});
