import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { lastValueFrom } from 'rxjs';
import { setLogger } from '../../src/index.js';
import { newShardRing, SHARD_GROUP_LABEL, SHARD_VIEW_ANNOTATION, type ShardRing } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Harness } from '../helpers/kube.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

const KEYS = Array.from({ length: 300 }, (_, i) => `default/gadget-${i}`);
const timing = { leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 };

interface Member {
  readonly name: string;
  readonly ring: ShardRing;
  readonly stop: AbortController;
}

describe('newShardRing', () => {
  const h = new Harness();
  let clock: ManualScheduler;
  let members: Member[] = [];
  /** Every moment (virtual ms) a key had two owners, checked whenever any member's ownership changed. */
  let doubleOwners: string[] = [];
  beforeAll(() => setLogger({ info: () => {}, debug: () => {}, warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());
  afterEach(async () => {
    for (const m of members) m.stop.abort();
    members = [];
    await h.release();
  });

  function checkOwners(): void {
    for (const key of KEYS) {
      const owners = members.filter((m) => m.ring.owns(key)).map((m) => m.name);
      if (owners.length > 1) doubleOwners.push(`${clock.now()} ${key}: ${owners.join(',')}`);
    }
  }

  function join(server: ApiServer, name: string): Member {
    const stop = new AbortController();
    const kc: KubeConfig = server.kubeConfig({ as: name });
    const ring = newShardRing(kc, {
      namespace: 'default',
      group: 'gadgets',
      identity: name,
      ...timing,
      timerScheduler: clock,
      stop: stop.signal,
    });
    ring.gate.changes$.subscribe(() => checkOwners());
    const m = { name, ring, stop };
    members.push(m);
    return m;
  }

  async function step(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 100) {
      clock.advance(Math.min(100, ms - t));
      for (let i = 0; i < 4; i++) await Promise.all(members.map((m) => m.ring.idle()));
    }
  }

  const ownersOf = (ms: readonly Member[]) => new Map(KEYS.map((k) => [k, ms.filter((m) => m.ring.owns(k)).map((m) => m.name)]));

  async function fresh(): Promise<ApiServer> {
    clock = new ManualScheduler();
    doubleOwners = [];
    return h.server({ requestLogLimit: 100_000 });
  }

  it('should let a lone member own every key once its labelled Lease is written', async () => {
    const server = await fresh();
    const a = join(server, 'a');
    expect(KEYS.some((k) => a.ring.owns(k))).toBe(false);
    await step(100);
    expect(a.ring.members()).toEqual(['a']);
    expect(KEYS.every((k) => a.ring.owns(k))).toBe(true);
    const res = await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/gadgets-a`);
    const lease = (await res.json()) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { holderIdentity: string };
    };
    expect(lease.metadata.labels[SHARD_GROUP_LABEL]).toBe('gadgets');
    expect(lease.metadata.annotations[SHARD_VIEW_ANNOTATION]).toBe('a');
    expect(lease.spec.holderIdentity).toBe('a');
  });

  it('should split keys among members, and on a join move about 1/N to the joiner only after the old owners let go', async () => {
    const server = await fresh();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(server, n));
    await step(6_000);
    const before = ownersOf([a!, b!, c!]);
    expect([...before.values()].every((o) => o.length === 1)).toBe(true);
    for (const m of [a!, b!, c!]) expect(m.ring.members()).toEqual(['a', 'b', 'c']);
    const d = join(server, 'd');
    // The joiner sees everyone at once, but what it takes is still acted on by its old owners.
    await step(100);
    expect(d.ring.members()).toEqual(['a', 'b', 'c', 'd']);
    expect(KEYS.some((k) => d.ring.owns(k))).toBe(false);
    await step(6_000);
    const after = ownersOf([a!, b!, c!, d]);
    expect([...after.values()].every((o) => o.length === 1)).toBe(true);
    const moved = KEYS.filter((k) => after.get(k)![0] !== before.get(k)![0]);
    expect(moved.every((k) => after.get(k)![0] === 'd')).toBe(true);
    expect(moved.length).toBeGreaterThan(300 / 4 / 2);
    expect(moved.length).toBeLessThan((300 / 4) * 1.5);
    expect(doubleOwners).toEqual([]);
  });

  it('should hand over the keys of a leaving member within two retry periods, after it stopped acting', async () => {
    const server = await fresh();
    const all = ['a', 'b', 'c'].map((n) => join(server, n));
    await step(6_000);
    const leaving = all[2]!;
    const itsKeys = KEYS.filter((k) => leaving.ring.owns(k));
    leaving.stop.abort();
    expect(itsKeys.some((k) => leaving.ring.owns(k))).toBe(false);
    members = members.filter((m) => m !== leaving);
    await step(2 * timing.retryPeriodSeconds * 1000 + 1_000);
    expect(all[0]!.ring.members()).toEqual(['a', 'b']);
    expect([...ownersOf(all.slice(0, 2)).values()].every((o) => o.length === 1)).toBe(true);
    expect(doubleOwners).toEqual([]);
  });

  it('should stop a partitioned member acting by its renew deadline, and give its keys away only after its Lease expired', async () => {
    const server = await fresh();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(server, n));
    await step(6_000);
    const cKeys = KEYS.filter((k) => c!.ring.owns(k));
    const cutAt = clock.now();
    server.partition('c');
    let cStoppedAt: number | undefined;
    let takenAt: number | undefined;
    for (let t = 0; t < 25_000; t += 100) {
      await step(100);
      if (cStoppedAt === undefined && !cKeys.some((k) => c!.ring.owns(k))) cStoppedAt = clock.now();
      if (takenAt === undefined && cKeys.some((k) => a!.ring.owns(k) || b!.ring.owns(k))) takenAt = clock.now();
    }
    expect(cStoppedAt).toBeLessThanOrEqual(cutAt + timing.renewDeadlineSeconds * 1000);
    expect(takenAt).toBeGreaterThan(cutAt + (timing.leaseDurationSeconds - timing.retryPeriodSeconds) * 1000);
    expect(takenAt).toBeGreaterThan(cStoppedAt!);
    expect(a!.ring.members()).toEqual(['a', 'b']);
    expect([...ownersOf([a!, b!]).values()].every((o) => o.length === 1)).toBe(true);
    // Healed, it rejoins and the keys come back to it once the others let go.
    server.heal('c');
    await step(8_000);
    expect(c!.ring.members()).toEqual(['a', 'b', 'c']);
    expect(cKeys.every((k) => c!.ring.owns(k))).toBe(true);
    expect(doubleOwners).toEqual([]);
  });

  it('should leave no timer behind when stopped while a renewal is in flight', async () => {
    const server = await fresh();
    let arrived!: () => void;
    const renewalArrived = new Promise<void>((resolve) => (arrived = resolve));
    const isRenewal = (method: string, path: string): boolean => {
      const hit = method === 'POST' && path.endsWith('/leases');
      if (hit) arrived();
      return hit;
    };
    server.delayNext(1, 200, { match: isRenewal });
    const a = join(server, 'a');
    await renewalArrived;
    a.stop.abort();
    members = [];
    await lastValueFrom(a.ring.members$, { defaultValue: [] });
    // The renewal answered after the stop: its renew deadline must not be scheduled, or the process stays up for it.
    expect(clock.pending()).toEqual([]);
    expect(a.ring.members()).toEqual([]);
  });

  it('should complete members$ only once the release on stop is written, so a process can wait for it', async () => {
    const server = await fresh();
    const a = join(server, 'a');
    await step(100);
    const leaseOf = async (): Promise<{ spec: { holderIdentity: string } }> =>
      (await (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/gadgets-a`)).json()) as {
        spec: { holderIdentity: string };
      };
    expect((await leaseOf()).spec.holderIdentity).toBe('a');
    a.stop.abort();
    members = [];
    await lastValueFrom(a.ring.members$, { defaultValue: [] });
    expect((await leaseOf()).spec.holderIdentity).toBe('');
  });

  it('should refuse bad options, naming the group and the value', () => {
    const kc = { getCurrentCluster: () => null } as unknown as KubeConfig;
    expect(() => newShardRing(kc, { namespace: 'ns', group: 'has space', identity: 'a' })).toThrow(
      'newShardRing(ns/has space): group must be a label value (63 characters at most, alphanumeric at both ends), got "has space"',
    );
    expect(() => newShardRing(kc, { namespace: 'ns', group: 'g', identity: 'a', virtualNodes: 1.5 })).toThrow(
      'newShardRing(ns/g): virtualNodes must be a positive integer, got 1.5',
    );
    expect(() => newShardRing(kc, { namespace: 'ns', group: 'g', identity: 'a,b' })).toThrow(
      'identity must not contain a comma, got "a,b"',
    );
    expect(() => newShardRing(kc, { namespace: 'ns', group: 'g', identity: 'a', retryPeriodSeconds: 20 })).toThrow(
      'newShardRing(ns/g): retryPeriodSeconds (20) must be less than renewDeadlineSeconds (10)',
    );
  });
});
