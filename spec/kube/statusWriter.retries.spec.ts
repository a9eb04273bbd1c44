import { describe, it, expect } from '@jest/globals';
import { pause, recordingScheduler, until } from '../helpers/kube.js';
import { GROUP, isStatusPatch, statusWriterRig } from './statusWriter.fixtures.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

describe('newStatusWriter retries', () => {
  const { setup, resize, read, pipeline, patches } = statusWriterRig();

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
    const clock = new ManualScheduler();
    const { writer } = pipeline(kc, { timerScheduler: clock, backoff: { initialMs: 100 } });
    await until(() => writer.stats.retries === 1, 'the first attempt to fail');
    expect(clock.pending().length).toBeGreaterThan(0);
    writer.stop();
    // Nothing left scheduled: with real timers, a pending retry would hold a process open after stop.
    expect(clock.pending()).toEqual([]);
    clock.advance(10_000);
    await pause(50);
    await writer.idle();
    expect(patches(server, 'g1')).toHaveLength(1);
    expect(writer.stats).toMatchObject({ writes: 0, retries: 1, inFlight: 0, queued: 0 });
  });
});
