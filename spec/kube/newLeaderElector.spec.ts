import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { lastValueFrom } from 'rxjs';
import { setLogger } from '../../src/index.js';
import { newLeaderElector, type LeaderElector, type LeaderElectorOptions } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Harness, until } from '../helpers/kube.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/default/leases/ctl';

interface Lease {
  metadata: { resourceVersion?: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

/** One replica: its elector, its own client identity, and the moments (virtual ms) its leadership changed. */
interface Replica {
  readonly name: string;
  readonly kc: KubeConfig;
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly changes: Array<[boolean, number]>;
}

describe('newLeaderElector', () => {
  const h = new Harness();
  let clock: ManualScheduler;
  const replicas: Replica[] = [];
  /** Side effects in flight (the gated actor below), so a step waits for them too. */
  const actions = new Set<Promise<unknown>>();
  beforeAll(() => setLogger({ info: () => {}, debug: () => {}, warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());
  afterEach(async () => {
    for (const r of replicas.splice(0)) r.stop.abort();
    await h.release();
  });

  const timing = { leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 };

  function start(server: ApiServer, name: string, extra: Partial<LeaderElectorOptions> = {}): Replica {
    const kc = server.kubeConfig({ as: name });
    const stop = new AbortController();
    const elector = newLeaderElector(kc, {
      namespace: 'default',
      name: 'ctl',
      identity: name,
      ...timing,
      timerScheduler: clock,
      stop: stop.signal,
      ...extra,
    });
    const changes: Array<[boolean, number]> = [];
    elector.leader$.subscribe((l) => changes.push([l, clock.now()]));
    const r = { name, kc, elector, stop, changes };
    replicas.push(r);
    return r;
  }

  /** Moves virtual time by `ms` in 100 ms steps, letting every request started on the way finish. */
  async function step(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 100) {
      clock.advance(Math.min(100, ms - t));
      for (let i = 0; i < 3; i++) await Promise.all([...replicas.map((r) => r.elector.idle()), ...actions]);
    }
  }

  async function lease(server: ApiServer): Promise<Lease> {
    const res = await fetch(server.url + LEASE);
    return (await res.json()) as Lease;
  }

  /** Each tick, a replica whose gate owns 'work' writes a ConfigMap: the side effect a controller would make. */
  function act(r: Replica): void {
    clock.schedule(function (this: { schedule(s?: unknown, d?: number): unknown }) {
      if (!r.stop.signal.aborted && r.elector.gate.owns('work')) {
        const p = r.kc
          .makeApiClient(CoreV1Api)
          .patchNamespacedConfigMap({ namespace: 'default', name: 'work', body: { data: { by: r.name } } })
          .catch(() => undefined);
        actions.add(p);
        void p.finally(() => actions.delete(p));
      }
      if (!r.stop.signal.aborted) this.schedule(undefined, 500);
    }, 500);
  }

  it('should let the first replica take a free Lease and write it as the API defines it', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    const a = start(server, 'a');
    await step(100);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.leaderIdentity()).toBe('a');
    const b = start(server, 'b');
    await step(4_000);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leaderIdentity()).toBe('a');
    expect(b.changes).toEqual([[false, 100]]);
    const l = await lease(server);
    expect(l.spec.holderIdentity).toBe('a');
    expect(l.spec.leaseDurationSeconds).toBe(15);
    expect(l.spec.leaseTransitions).toBe(0);
    expect(l.spec.acquireTime).toMatch(MICRO_TIME);
    expect(l.spec.renewTime).toMatch(MICRO_TIME);
    // Renewed every retry period: the renew time moved, the acquire time did not.
    expect(l.spec.renewTime).not.toBe(l.spec.acquireTime);
    // It led from its first answer on (which lands within the first step), without a break.
    expect(a.changes.map(([leading]) => leading)).toEqual([false, true]);
    expect(a.changes[1]![1]).toBeLessThanOrEqual(100);
  });

  it('should elect a new leader within lease duration + retry period after the leader dies', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    const a = start(server, 'a', { releaseOnStop: false });
    await step(100);
    const b = start(server, 'b');
    const c = start(server, 'c');
    await step(3_000);
    expect([a, b, c].map((r) => r.elector.isLeader())).toEqual([true, false, false]);
    const killedAt = clock.now();
    a.stop.abort();
    await step(20_000);
    const winners = [b, c].filter((r) => r.elector.isLeader());
    expect(winners).toHaveLength(1);
    const tookOverAt = winners[0]!.changes.find(([l]) => l)![1];
    expect(tookOverAt - killedAt).toBeLessThanOrEqual((timing.leaseDurationSeconds + timing.retryPeriodSeconds) * 1000);
    // Not before the lease could have expired, measured from the last renewal anyone saw.
    expect(tookOverAt - killedAt).toBeGreaterThan((timing.leaseDurationSeconds - timing.retryPeriodSeconds) * 1000);
    const l = await lease(server);
    expect(l.spec.holderIdentity).toBe(winners[0]!.name);
    expect(l.spec.leaseTransitions).toBe(1);
  });

  it('should hand over within one retry period when the leader releases the Lease on stop', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    const a = start(server, 'a');
    await step(100);
    const b = start(server, 'b');
    await step(2_000);
    const stoppedAt = clock.now();
    a.stop.abort();
    await step(100);
    expect(a.changes.at(-1)).toEqual([false, stoppedAt]);
    await step(timing.retryPeriodSeconds * 1000);
    expect(b.elector.isLeader()).toBe(true);
    expect((await lease(server)).spec.leaseTransitions).toBe(1);
  });

  it('should complete leader$ only once the release on stop is written, so a process can wait for it', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    const a = start(server, 'a');
    await step(100);
    expect((await lease(server)).spec.holderIdentity).toBe('a');
    a.stop.abort();
    await lastValueFrom(a.elector.leader$, { defaultValue: false });
    expect((await lease(server)).spec.holderIdentity).toBe('');
  });

  it('should step down a partitioned leader before anyone else takes over, as the server saw it', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    await server
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'work' } } });
    const a = start(server, 'a');
    await step(100);
    const b = start(server, 'b');
    act(a);
    act(b);
    await step(3_000);
    const cutAt = clock.now();
    server.partition('a');
    await step(25_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(b.elector.isLeader()).toBe(true);
    const aDown = a.changes.at(-1)!;
    const bUp = b.changes.at(-1)!;
    expect(aDown[0]).toBe(false);
    expect(aDown[1]).toBeLessThanOrEqual(cutAt + timing.renewDeadlineSeconds * 1000);
    expect(aDown[1]).toBeLessThan(bUp[1]);
    // From the server's record: every write a tried (succeeded or not) came before b's winning Lease write,
    // and b wrote nothing before it.
    const log = server.requests;
    const takeover = log.findIndex((r) => r.client === 'b' && r.method === 'PUT' && r.path.startsWith(LEASE) && r.status === 200);
    expect(takeover).toBeGreaterThan(0);
    const writes = log.map((r, i) => ({ ...r, i })).filter((r) => r.method === 'PATCH' && r.path.includes('/configmaps/work'));
    expect(writes.filter((w) => w.client === 'a').length).toBeGreaterThan(0);
    expect(writes.filter((w) => w.client === 'a' && w.i > takeover)).toEqual([]);
    expect(writes.filter((w) => w.client === 'b' && w.i < takeover)).toEqual([]);
    expect(writes.filter((w) => w.client === 'b').length).toBeGreaterThan(0);
    // Healed, the old leader follows.
    server.heal('a');
    await step(4_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.leaderIdentity()).toBe('b');
  });

  it('should lose a race for the Lease by resourceVersion, never both win', async () => {
    clock = new ManualScheduler();
    const server = await h.server();
    const all = ['a', 'b', 'c', 'd'].map((n) => start(server, n));
    await step(6_000);
    expect(all.filter((r) => r.elector.isLeader())).toHaveLength(1);
    expect(all.flatMap((r) => r.changes.filter(([l]) => l))).toHaveLength(1);
  });

  it('should refuse timing that would let two replicas lead at once, naming the Lease and the values', () => {
    clock = new ManualScheduler();
    const kc = { getCurrentCluster: () => null } as unknown as KubeConfig;
    expect(() =>
      newLeaderElector(kc, { namespace: 'ns', name: 'l', identity: 'a', leaseDurationSeconds: 10, renewDeadlineSeconds: 10 }),
    ).toThrow('newLeaderElector(ns/l): renewDeadlineSeconds (10) must be less than leaseDurationSeconds (10)');
    expect(() => newLeaderElector(kc, { namespace: 'ns', name: 'l', identity: '' })).toThrow(
      'newLeaderElector(ns/l): identity must be a non-empty string, got ""',
    );
    expect(() => newLeaderElector(kc, { namespace: 'ns', name: 'l', identity: 'a', retryPeriodSeconds: -1 })).toThrow(
      'retryPeriodSeconds must be a positive number, got -1',
    );
  });

  it('should fail over in real time with short leases (smoke)', async () => {
    const server = await h.server();
    const fast = { leaseDurationSeconds: 1, renewDeadlineSeconds: 0.6, retryPeriodSeconds: 0.15, releaseOnStop: false };
    const mk = (n: string) => {
      const stop = new AbortController();
      h.stop().addEventListener('abort', () => stop.abort());
      const elector = newLeaderElector(server.kubeConfig({ as: n }), {
        namespace: 'default',
        name: 'ctl',
        identity: n,
        ...fast,
        stop: stop.signal,
      });
      return { elector, stop };
    };
    const a = mk('a');
    await until(() => a.elector.isLeader(), 'a leads');
    const b = mk('b');
    await until(() => b.elector.leaderIdentity() === 'a', 'b sees a');
    a.stop.abort();
    await until(() => b.elector.isLeader(), 'b takes over', 15_000);
    expect(a.elector.isLeader()).toBe(false);
  });
});
