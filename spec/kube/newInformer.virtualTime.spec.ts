// newInformer against the embedded API server with every timer on a virtual clock: its backoff, recovery, health
// and watch timeout happen at virtual times a marble diagram states, whatever the wall clock does meanwhile.
import { describe, it, expect } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { TestScheduler } from 'rxjs/testing';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { isList, until } from '../helpers/kube.js';
import { proxiedHarness } from '../helpers/proxiedHarness.js';
import { Timeline, advanceTo, pendingFrames } from '../helpers/virtualClock.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: {} });
const VALUES = { e: 'error', a: 'add default/a', b: 'add default/b', c: 'add default/c', d: 'add default/d', s: 'synced' };

describe('newInformer in virtual time', () => {
  const { h } = proxiedHarness();

  it('should back off 100, 200, 400 ms on failed LISTs, recover, and back off again from where it stood until a watch stays healthy', async () => {
    // Bookmarks rarer than the test: every line a watch delivers is one the test caused.
    const server = await h.server({ bookmarkIntervalMs: 600_000 });
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    // 500 without Retry-After: the waits are the backoff's alone (a 503's Retry-After would set a floor).
    server.failNext(3, 500, { match: isList('/configmaps') });

    // A TestScheduler outside `run` is a VirtualTimeScheduler: time moves only when the test moves it.
    const clock = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const timeline = new Timeline(clock);
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), timerScheduler: clock, backoff: { jitter: false } });
    cms.errors$.subscribe(() => timeline.record(VALUES.e));
    cms.events$.subscribe((batch) =>
      batch.forEach((e) => timeline.record(`${e.type} ${e.new?.metadata?.namespace}/${e.new?.metadata?.name}`)),
    );
    void cms.waitUntilSynced().then(() => timeline.record(VALUES.s));
    const seen = (n: number) => () => timeline.frames.length === n;
    /** The informer waits on its backoff timer alone: let it fire. */
    const fireBackoff = async (what: string) => {
      await until(() => informerStats(cms)!.state === 'waiting', what);
      advanceTo(clock, pendingFrames(clock)[0]!);
    };

    // Three failed LISTs, each retried after twice the wait before it.
    for (let i = 1; i <= 3; i++) {
      await until(seen(i), `LIST failure ${i}`);
      await fireBackoff(`backoff ${i}`);
    }
    await until(seen(5), 'the LIST, then sync');
    await until(() => server.openWatches() === 1, 'the watch');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(seen(6), 'b');

    // The watch fails: one more failure than the LISTs before it (no watch has proven healthy yet): 800 ms.
    // What changes meanwhile arrives when the watch is back, at the virtual time it reopens.
    server.failWatches(500);
    await until(seen(7), 'the watch failure');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await fireBackoff('the watch backoff');
    await until(seen(8), 'c, replayed by the new watch');

    // Once that watch has lasted healthyWatchMs (10 s of virtual time) the failures are forgiven: back to 100 ms.
    await until(() => pendingFrames(clock).includes(clock.now() + 10_000), 'the health timer of the open watch');
    advanceTo(clock, clock.now() + 10_000);
    server.failWatches(500);
    await until(seen(9), 'the second watch failure');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('d') });
    await fireBackoff('the second watch backoff');
    await until(seen(10), 'd');

    expect(timeline.frames).toEqual(Timeline.expected('e 99ms e 199ms e 399ms (asbe) 794ms c 9999ms e 99ms d', VALUES));
    expect(informerStats(cms)).toMatchObject({ lists: 4, relists: 0, errors: 5, state: 'watching' });
  });

  it("should end a watch that sends nothing for watchTimeoutMs on the informer's own virtual clock, and watch again from where it stood", async () => {
    const server = await h.server({ bookmarkIntervalMs: 600_000 });
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    const clock = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), timerScheduler: clock, watchTimeoutMs: 30_000, healthyWatchMs: 10_000 });
    expect(await cms.waitUntilSynced()).toBe(true);
    await until(() => server.openWatches() === 1 && pendingFrames(clock).length === 2, 'the watch, with its timeout and health timers');
    expect(pendingFrames(clock)).toEqual([10_000, 30_000]);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(() => cms.getKey('default/b') !== undefined, 'b');

    // A line at virtual 20 s pushes the deadline to 50 s: nothing happens at 30 s.
    advanceTo(clock, 20_000);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await until(() => cms.getKey('default/c') !== undefined, 'c');
    advanceTo(clock, 49_999);
    expect(informerStats(cms)!.watches).toBe(1);
    // At 50 s the watch has been quiet for 30 s: ended and reopened at once (it had delivered lines), no error.
    advanceTo(clock, 50_000);
    await until(() => informerStats(cms)!.watches === 2 && server.openWatches() === 1, 'the second watch');
    // A watch enters the request log when it ends: the first one, cut by the timeout, is there.
    await until(() => server.requests.filter((r) => r.path.includes('watch=true')).length === 1, 'the first watch in the log');
    server.dropWatches();
    await until(() => server.requests.filter((r) => r.path.includes('watch=true')).length >= 2, 'the second watch in the log');
    const watches = server.requests
      .filter((r) => r.path.includes('watch=true'))
      .slice(0, 2)
      .map((r) => new URL(r.path, 'http://x'));
    expect(watches.map((u) => u.searchParams.get('resourceVersion'))).toEqual([
      expect.any(String),
      cms.getKey('default/c')!.metadata!.resourceVersion,
    ]);
    expect(informerStats(cms)).toMatchObject({ lists: 1, errors: 0, watches: 2 });
  });
});
