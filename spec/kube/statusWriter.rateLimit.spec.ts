import { describe, it, expect } from '@jest/globals';
import { pause, until } from '../helpers/kube.js';
import { GROUP, isStatusPatch, mergePatch, statusWriterRig } from './statusWriter.fixtures.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

describe('newStatusWriter concurrency and rate limit', () => {
  const { setup, create, pipeline, patches } = statusWriterRig();

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
    const clock = new ManualScheduler();
    const { writer } = pipeline(kc, { qps: 2, concurrency: 10, timerScheduler: clock });
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
    const clock = new ManualScheduler();
    const { statuses, writer } = pipeline(kc, { qps: 1, timerScheduler: clock });
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
    const clock = new ManualScheduler();
    const { gadgets, writer } = pipeline(kc, { qps: 1, concurrency: 10, timerScheduler: clock });
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
});
