import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newShardRing, newStatusWriter, type ShardRing, type StatusWriter } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { lastValueFrom } from 'rxjs';
import { Harness, installCrd, until } from '../helpers/kube.js';

interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: { size: number };
}

const GROUP = 'example.com';
const COUNT = 300;
const KEYS = Array.from({ length: COUNT }, (_, i) => `default/g-${i}`);
// Short leases, real time, on a shared and busy machine: a member leaves the ring 4 s after its last renewal is seen.
const timing = { leaseDurationSeconds: 4, renewDeadlineSeconds: 3, retryPeriodSeconds: 0.5 };
// How long a status PATCH may take from the writer's ownership check to the server's log, under load.
const FLIGHT_MS = 1_000;

/** One replica of the controller: full state, gated status writes, and its ownership of each key over time. */
interface Replica {
  readonly name: string;
  readonly ring: ShardRing;
  readonly writer: StatusWriter;
  readonly stop: AbortController;
  /** Per key, the [from, to) wall-clock intervals this replica owned it; `to` is undefined while it still does. */
  readonly owned: Map<string, Array<[number, number | undefined]>>;
}

describe('newShardRing with gated status writers', () => {
  const h = new Harness();
  const replicas: Replica[] = [];
  beforeAll(() => setLogger({ info: () => {}, debug: () => {}, warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());
  afterEach(async () => {
    const leaving = replicas.splice(0);
    for (const r of leaving) r.stop.abort();
    // A ring releases its Lease on the way out (members$ completes after): closing the server first would leave
    // that request waiting out its timeout, past the end of the suite.
    await Promise.all(leaving.map((r) => lastValueFrom(r.ring.members$, { defaultValue: [] })));
    await h.release();
  });

  async function setup(): Promise<{ server: ApiServer; kc: KubeConfig }> {
    const server = await h.server({ requestLogLimit: 200_000 });
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (let i = 0; i < COUNT; i++) {
      await api.createNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `g-${i}` }, spec: { size: i } },
      });
    }
    return { server, kc };
  }

  function start(server: ApiServer, name: string): Replica {
    const stop = new AbortController();
    h.stop().addEventListener('abort', () => stop.abort());
    const kc = server.kubeConfig({ as: name });
    const ring = newShardRing(kc, { namespace: 'default', group: 'gadgets', identity: name, ...timing, stop: stop.signal });
    const owned = new Map<string, Array<[number, number | undefined]>>();
    const record = (): void => {
      const now = Date.now();
      for (const key of KEYS) {
        const spans = owned.get(key) ?? [];
        const open = spans.at(-1)?.[1] === undefined && spans.length > 0;
        const owns = ring.owns(key);
        if (owns && !open) spans.push([now, undefined]);
        if (!owns && open) spans.at(-1)![1] = now;
        owned.set(key, spans);
      }
    };
    // Subscribed before the writer, so an interval opens before the writer acts on the key.
    ring.gate.changes$.subscribe({ next: record, complete: record });
    const gadgets = newInformer<Gadget>(kc, { apiVersion: `${GROUP}/v1`, kind: 'Gadget' }, { stop: stop.signal });
    const [statuses] = newStatusCollection<Gadget, { size: number }, never>(gadgets, (_ctx, g) => ({ status: { size: g.spec.size } }), {
      name: `Gadgets-${name}`,
      stop: stop.signal,
    });
    const writer = newStatusWriter(kc, statuses, { gate: ring.gate, stop: stop.signal });
    const r = { name, ring, writer, stop, owned };
    replicas.push(r);
    return r;
  }

  const ownedAt = (r: Replica, key: string, t: number): boolean => ownedWithin(r, key, t, t);
  const ownedWithin = (r: Replica, key: string, start: number, end: number): boolean =>
    (r.owned.get(key) ?? []).some(([from, to]) => from <= end && (to === undefined || start < to));

  /** Status writes from the server's record: who wrote which key, when. */
  function statusWrites(server: ApiServer): Array<{ client: string; key: string; at: number; status?: number }> {
    return server.requests
      .filter((r) => r.method === 'PATCH' && r.path.includes('/gadgets/') && r.path.includes('/status'))
      .map((r) => ({
        client: r.client ?? '?',
        key: `default/${/gadgets\/([^/?]+)\/status/.exec(r.path)![1]}`,
        at: r.at!,
        status: r.status,
      }));
  }

  /**
   * Every write arrived while no other replica owned the key, from a replica that owned it then or at most a
   * request's flight before (it checks ownership when it sends).
   */
  function wrongWrites(server: ApiServer, all: readonly Replica[]): string[] {
    const bad: string[] = [];
    for (const w of statusWrites(server)) {
      const writer = all.find((r) => r.name === w.client)!;
      const others = all.filter((r) => r !== writer && ownedAt(r, w.key, w.at)).map((r) => r.name);
      const owned = ownedWithin(writer, w.key, w.at - FLIGHT_MS, w.at);
      if (!owned || others.length > 0)
        bad.push(`${w.client} wrote ${w.key} at ${w.at}; owned: ${owned}; others owning: ${others.join(',')}`);
    }
    return bad;
  }

  async function converged(kc: KubeConfig, sizeOf: (i: number) => number): Promise<boolean> {
    const list = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
    })) as { items: Gadget[] };
    return list.items.length === COUNT && list.items.every((g) => g.status?.size === sizeOf(Number(g.metadata!.name!.slice(2))));
  }

  it('should write each of 300 statuses from exactly one of three replicas, and keep that through a join and a leave', async () => {
    const { server, kc } = await setup();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => start(server, n));
    await until(() => converged(kc, (i) => i), 'statuses written', 30_000);
    const first = statusWrites(server).filter((w) => w.status === 200);
    const writersOf = new Map<string, Set<string>>();
    for (const w of first) writersOf.set(w.key, (writersOf.get(w.key) ?? new Set()).add(w.client));
    expect(writersOf.size).toBe(COUNT);
    expect([...writersOf.values()].every((s) => s.size === 1)).toBe(true);
    // Each replica wrote a real share.
    for (const r of [a, b, c]) expect(first.filter((w) => w.client === r!.name).length).toBeGreaterThan(COUNT / 6);

    // A fourth joins; every object changes; all statuses converge.
    const d = start(server, 'd');
    await until(() => d.ring.members().length === 4 && KEYS.some((k) => d.ring.owns(k)), 'd owns keys', 15_000);
    const api = kc.makeApiClient(CustomObjectsApi);
    for (let i = 0; i < COUNT; i++) {
      await api.patchNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        name: `g-${i}`,
        body: [{ op: 'replace', path: '/spec/size', value: i + 1000 }],
      });
    }
    await until(() => converged(kc, (i) => i + 1000), 'statuses after the join', 30_000);
    const dWrites = statusWrites(server).filter((w) => w.client === 'd' && w.status === 200);
    expect(dWrites.length).toBeGreaterThan(COUNT / 8);

    // It leaves; every object changes again; the three left converge it.
    const dStoppedAt = Date.now();
    d.stop.abort();
    await until(() => a!.ring.members().length === 3 && b!.ring.members().length === 3 && c!.ring.members().length === 3, 'd gone', 15_000);
    for (let i = 0; i < COUNT; i++) {
      await api.patchNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        name: `g-${i}`,
        body: [{ op: 'replace', path: '/spec/size', value: i + 2000 }],
      });
    }
    await until(() => converged(kc, (i) => i + 2000), 'statuses after the leave', 30_000);
    expect(wrongWrites(server, [a!, b!, c!, d])).toEqual([]);
    expect(statusWrites(server).filter((w) => w.client === 'd' && w.at > dStoppedAt + FLIGHT_MS)).toEqual([]);
  }, 150_000);
});
