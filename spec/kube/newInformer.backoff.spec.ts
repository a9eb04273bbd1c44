// newInformer's backoff against a flapping server: it only starts over after a healthy watch, and it is jittered.
import { describe, it, expect } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { newInformer, informerStats, type InformerOptions } from '../../src/kube/index.js';
import { Replica, until } from '../helpers/kube.js';
import { listOf, watchOf } from '../helpers/apiProxy.js';
import { proxiedHarness } from '../helpers/proxiedHarness.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string, resourceVersion: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion },
  data: {},
});

describe('newInformer backoff', () => {
  const { h, proxyTo } = proxiedHarness();

  async function setup(opts: InformerOptions) {
    const server = await h.server();
    await server
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: cm('a', '') });
    const proxy = await proxyTo(server.url);
    const clock = new ManualScheduler();
    const informer = newInformer<V1ConfigMap>(proxy.kubeConfig(), CM, { stop: h.stop(), timerScheduler: clock, ...opts });
    return { server, proxy, clock, informer, replica: new Replica(informer) };
  }

  it('should keep growing the backoff while every watch delivers an event and then fails, and start over once a watch stays healthy', async () => {
    // Each flap adds an object at the server's own resourceVersion: a version it never issued would make the
    // healed watch answer 504 (too large resource version), as a real server does.
    let n = 0;
    let serverVersion = '';
    const flap = () => ({
      kind: 'stream' as const,
      lines: [
        { type: 'ADDED', object: cm(`flap-${++n}`, serverVersion) },
        { type: 'ERROR', object: { kind: 'Status', code: 500, message: 'flap' } },
      ],
    });
    const { server, proxy, clock, informer, replica } = await setup({ backoff: { random: () => 1 } });
    serverVersion = server.resourceVersion();
    const stopFlapping = proxy.on(watchOf('/configmaps'), flap);
    expect(await informer.waitUntilSynced()).toBe(true);

    const waits: number[] = [];
    for (let i = 1; i <= 5; i++) {
      await until(
        () => replica.errors.length === i && clock.pending().length === 1,
        () => `failure ${i}: errors ${replica.errors.length}, pending ${JSON.stringify(clock.pending())}`,
      );
      waits.push(...clock.pending());
      clock.advanceToNext();
    }
    // It used to be 100 every time: the event reset the count, so a flapping server was hammered.
    expect(waits).toEqual([100, 200, 400, 800, 1600]);
    expect(replica.state.size).toBeGreaterThan(1);

    // The server heals: the next watch stays open. Once it has lasted healthyWatchMs (10 s), the count starts over.
    stopFlapping();
    await until(() => clock.pending().includes(10_000), 'the health timer of the open watch');
    clock.advance(10_000);
    proxy.on(watchOf('/configmaps'), flap, 1);
    server.dropWatches();
    await until(() => replica.errors.length === 6 && clock.pending().length === 1, 'one more failure');
    expect(clock.pending()).toEqual([100]);
    expect(informerStats(informer)).toMatchObject({ lists: 1, errors: 6 });
  });

  it('should not forgive failures for a watch that ends before healthyWatchMs', async () => {
    // The watch timeout (also on this clock) kept apart from the health timer the test looks for.
    const { server, proxy, clock, informer, replica } = await setup({
      backoff: { random: () => 1 },
      healthyWatchMs: 30_000,
      watchTimeoutMs: 120_000,
    });
    // The first watch fails at once.
    proxy.on(
      watchOf('/configmaps'),
      { kind: 'stream', lines: [{ type: 'ERROR', object: { kind: 'Status', code: 500, message: 'x' } }] },
      1,
    );
    expect(await informer.waitUntilSynced()).toBe(true);
    await until(() => replica.errors.length === 1 && clock.pending().length === 1, 'the first failure');
    expect(clock.pending()).toEqual([100]);
    clock.advanceToNext();
    // The next one stays open 1 ms short of healthy, then fails.
    await until(() => clock.pending().includes(30_000), 'the next watch open, with its 30 s health timer');
    clock.advance(29_999);
    server.failWatches(500);
    await until(() => replica.errors.length === 2 && clock.pending().length === 1, 'the second failure');
    expect(clock.pending()).toEqual([200]);
  });

  it('should spread the waits over [delay/2, delay] with the injected random source (equal jitter)', async () => {
    const randoms = [0, 0.5, 1];
    const seen: number[] = [];
    const { proxy, clock, informer, replica } = await setup({
      backoff: {
        random: () => {
          const r = randoms.shift()!;
          seen.push(r);
          return r;
        },
      },
    });
    proxy.on(listOf('/configmaps'), { kind: 'answer', status: 500, body: { kind: 'Status', code: 500 } }, 3);
    const waits: number[] = [];
    for (let i = 1; i <= 3; i++) {
      await until(() => replica.errors.length === i && clock.pending().length === 1, `LIST failure ${i}`);
      waits.push(...clock.pending());
      clock.advanceToNext();
    }
    // Backoffs 100, 200, 400 → 50 + 0·50, 100 + 0.5·100, 200 + 1·200.
    expect(waits).toEqual([50, 150, 400]);
    expect(seen).toEqual([0, 0.5, 1]);
    expect(await informer.waitUntilSynced()).toBe(true);
  });

  it('should wait the backoff itself with jitter off', async () => {
    const { proxy, clock, replica } = await setup({ backoff: { jitter: false, random: () => 0 } });
    proxy.on(listOf('/configmaps'), { kind: 'answer', status: 500, body: { kind: 'Status', code: 500 } }, 1);
    await until(() => replica.errors.length === 1 && clock.pending().length === 1, 'the LIST failure');
    expect(clock.pending()).toEqual([100]);
  });

  it('should arm no retry when a collection stopped from its errors$ was the last on the feed', async () => {
    const stop = new AbortController();
    const { proxy, clock, informer } = await setup({ stop: stop.signal, backoff: { jitter: false } });
    informer.errors$.subscribe(() => stop.abort());
    proxy.on(listOf('/configmaps'), { kind: 'answer', status: 500, body: { kind: 'Status', code: 500 } }, 1);
    await until(() => stop.signal.aborted, 'the LIST failure on errors$');
    // The failure was reported before the retry was armed: a timer armed now would outlive the stopped feed.
    expect(clock.pending()).toEqual([]);
    expect(informerStats(informer)).toMatchObject({ state: 'stopped', lists: 1 });
  });

  it('should send no LIST when a collection stopped from its errors$ was the last on the feed', async () => {
    const stop = new AbortController();
    const { server, proxy, informer } = await setup({ stop: stop.signal });
    informer.errors$.subscribe(() => stop.abort());
    // An event, then a refusal of the resourceVersion: the step asks for a report and a LIST at once.
    const refused = { type: 'ERROR', object: { kind: 'Status', code: 400, message: 'refused' } };
    proxy.on(watchOf('/configmaps'), { kind: 'stream', lines: [{ type: 'ADDED', object: cm('b', server.resourceVersion()) }, refused] }, 1);
    await until(() => stop.signal.aborted, 'the refused watch on errors$');
    expect(informerStats(informer)).toMatchObject({ state: 'stopped', lists: 1 });
  });
});
