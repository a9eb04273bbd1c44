// Replicas of the demo controller: each keeps the full state; with several, a shard ring gates status writes.
import type { KubeConfig, V1Namespace, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Collection } from 'rxkrt';
import { newInformer, newShardRing, newStatusWriter, type ShardRing, type StatusWriter } from 'rxkrt/kube';
import type { ApiServer } from 'rxkrt/apiserver';
import { buildRegistry, type Registry } from '../workload-registry/registry.js';
import { POLICY_API_VERSION, type AccessPolicy } from '../workload-registry/types.js';

/** Lease timing of the demo's shard ring: short, so a 15 s run shows a failover. */
export const DEMO_LEASE = { leaseDurationSeconds: 3, renewDeadlineSeconds: 2, retryPeriodSeconds: 0.5 };

/** One running replica of the controller. */
export interface Replica {
  readonly name: string;
  readonly sources: Collection<unknown>[];
  readonly pods: Collection<V1Pod>;
  readonly registry: Registry;
  /** Its status writer, once started. */
  writer?: StatusWriter;
  /** Its shard ring, when sharded. */
  readonly ring?: ShardRing;
  readonly stop: AbortController;
  /** When it was killed (ms since the epoch). */
  killedAt?: number;
  /** Per policy key, the [from, to) times (ms since the epoch) it owned the key; `to` undefined while it does. */
  readonly owned: Map<string, Array<[number, number | undefined]>>;
}

/** Starts a replica's informers and registry (and, when `sharded`, its member Lease). */
export function startReplica(kc: KubeConfig, name: string, sharded: boolean, parent: AbortSignal): Replica {
  const stop = new AbortController();
  parent.addEventListener('abort', () => stop.abort(), { once: true });
  const o = { stop: stop.signal };
  // One replica keeps the plain names users (and the graph page) know; several are told apart by a suffix.
  const at = sharded ? `@${name}` : '';
  const namespaces = newInformer<V1Namespace>(kc, { apiVersion: 'v1', kind: 'Namespace' }, { ...o, name: `Namespaces${at}` });
  const pods = newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod' }, { ...o, name: `Pods${at}` });
  const services = newInformer<V1Service>(kc, { apiVersion: 'v1', kind: 'Service' }, { ...o, name: `Services${at}` });
  const policies = newInformer<AccessPolicy>(
    kc,
    { apiVersion: POLICY_API_VERSION, kind: 'AccessPolicy' },
    { ...o, name: `AccessPolicies${at}` },
  );
  const registry = buildRegistry({ namespaces, pods, services, policies }, o);
  const ring = sharded
    ? newShardRing(kc, { namespace: 'default', group: 'rxkrt-demo', identity: name, ...DEMO_LEASE, stop: stop.signal })
    : undefined;
  const replica: Replica = {
    name,
    pods,
    sources: [namespaces, pods, services, policies] as Collection<unknown>[],
    registry,
    ring,
    stop,
    owned: new Map(),
  };
  ring?.gate.changes$.subscribe({ next: () => recordOwnership(replica), complete: () => recordOwnership(replica) });
  return replica;
}

/** Starts the replica's status writer, gated by its ring when it has one. */
export function startWriter(kc: KubeConfig, r: Replica): StatusWriter {
  r.writer = newStatusWriter(kc, r.registry.policyStatus, {
    stop: r.stop.signal,
    concurrency: 8,
    qps: 200,
    plurals: { AccessPolicy: 'accesspolicies' },
    ...(r.ring !== undefined ? { gate: r.ring.gate } : {}),
  });
  return r.writer;
}

function policyKeys(r: Replica): string[] {
  return r.registry.policyStatus.list().map((s) => `${s.obj.metadata?.namespace}/${s.obj.metadata?.name}`);
}

function recordOwnership(r: Replica): void {
  const now = Date.now();
  for (const key of policyKeys(r)) {
    const spans = r.owned.get(key) ?? [];
    const open = spans.length > 0 && spans.at(-1)![1] === undefined;
    const owns = r.killedAt === undefined && r.ring?.owns(key) === true;
    if (owns && !open) spans.push([now, undefined]);
    if (!owns && open) spans.at(-1)![1] = now;
    r.owned.set(key, spans);
  }
}

/** How many policy keys each live replica owns now. */
export function sharesOf(replicas: readonly Replica[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replicas) out[r.name] = r.killedAt === undefined ? policyKeys(r).filter((k) => r.ring?.owns(k) ?? true).length : 0;
  return out;
}

/**
 * Kills a replica as a crash would: the server cuts it off first (so it cannot release its Lease), then it
 * stops. Resolves with the failover time: until every key it owned is owned by a live replica again.
 */
export async function kill(server: ApiServer, victim: Replica, all: readonly Replica[], signal?: AbortSignal): Promise<number | undefined> {
  const itsKeys = policyKeys(victim).filter((k) => victim.ring?.owns(k) === true);
  server.partition(victim.name, 'reset');
  victim.killedAt = Date.now();
  recordOwnership(victim);
  victim.stop.abort();
  const live = all.filter((r) => r !== victim && r.killedAt === undefined);
  while (signal?.aborted !== true) {
    if (itsKeys.every((k) => live.some((r) => r.ring?.owns(k) === true))) return Date.now() - victim.killedAt;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

const ownedAt = (r: Replica, key: string, t: number): boolean =>
  (r.owned.get(key) ?? []).some(([from, to]) => from <= t && (to === undefined || t < to));

/**
 * Status writes, from the server's request record, that arrived while a replica other than the writer owned
 * the key: a write by two owners at once. Zero is the promise of the shard ring.
 */
export function doubleWritesOf(server: ApiServer, replicas: readonly Replica[]): number {
  let doubles = 0;
  for (const w of server.requests) {
    if (w.method !== 'PATCH' || !w.path.includes('/accesspolicies/') || !w.path.includes('/status') || w.at === undefined) continue;
    const m = /namespaces\/([^/]+)\/accesspolicies\/([^/?]+)\/status/.exec(w.path);
    if (m === null) continue;
    const key = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
    if (replicas.some((r) => r.name !== w.client && ownedAt(r, key, w.at!))) doubles++;
  }
  return doubles;
}

/** Successful status writes per replica, from the server's request record. */
export function writesByReplica(server: ApiServer, replicas: readonly Replica[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(replicas.map((r) => [r.name, 0]));
  for (const w of server.requests) {
    if (
      w.method === 'PATCH' &&
      w.path.includes('/accesspolicies/') &&
      w.path.includes('/status') &&
      w.status === 200 &&
      w.client !== undefined
    ) {
      out[w.client] = (out[w.client] ?? 0) + 1;
    }
  }
  return out;
}
