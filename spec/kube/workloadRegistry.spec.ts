// The workload registry end to end: informers → derived graph → status writer, against the embedded API server.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import type { KubeConfig, KubernetesObject, V1Namespace, V1Pod, V1Service } from '@kubernetes/client-node';
import { batch, keyOf, newStaticCollection, setLogger, type Collection } from '../../src/index.js';
import { newInformer, newStatusWriter } from '../../src/kube/index.js';
import { buildRegistry, type Registry, type RegistrySources } from '../../examples/workload-registry/registry.js';
import { registryFromScratch, type ScratchResult } from '../../examples/workload-registry/fromScratch.js';
import { POLICY_API_VERSION, type AccessPolicy } from '../../examples/workload-registry/types.js';
import { churnOnce, clientsFor, mulberry32, seedCluster, type ClusterShape } from '../../examples/demo/cluster.js';
import { Harness, Replica, serverVersions, until, versions } from '../helpers/kube.js';

const SHAPE: ClusterShape = { namespaces: 3, pods: 24, services: 6, policies: 6 };

/** A static collection that mirrors a source, batch for batch. */
function mirror<T extends KubernetesObject>(source: Collection<T>): Collection<T> {
  const copy = newStaticCollection<T>([], { synced: false, name: `mirror/${source.name}` });
  source.registerBatch((events) =>
    batch(() => {
      for (const e of events) {
        if (e.type === 'delete') copy.deleteObject(keyOf(e.old));
        else copy.updateObject(e.new as T);
      }
    }),
  );
  void source.waitUntilSynced().then((ok) => ok && copy.markSynced());
  return copy;
}

/** The registry's outputs in a comparable form (sorted, status paired with its policy's key). */
function snapshot(r: Registry): ScratchResult {
  const byKey = <T>(xs: T[], k: (x: T) => string): T[] => [...xs].sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
  const metaKey = (x: { metadata: { name: string; namespace: string } }): string => `${x.metadata.namespace}/${x.metadata.name}`;
  return {
    workloads: byKey(r.workloads.list(), metaKey),
    serviceEndpoints: byKey(r.serviceEndpoints.list(), metaKey),
    policyStatus: byKey(
      r.policyStatus.list().map((p) => ({ key: keyOf(p.obj), status: p.status })),
      (p) => p.key,
    ),
  };
}

function sorted(s: ScratchResult): ScratchResult {
  const metaKey = (x: { metadata: { name: string; namespace: string } }): string => `${x.metadata.namespace}/${x.metadata.name}`;
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return {
    workloads: [...s.workloads].sort((a, b) => cmp(metaKey(a), metaKey(b))),
    serviceEndpoints: [...s.serviceEndpoints].sort((a, b) => cmp(metaKey(a), metaKey(b))),
    policyStatus: [...s.policyStatus].sort((a, b) => cmp(a.key, b.key)),
  };
}

/** The server's state, listed through client-node. */
async function serverState(
  kc: KubeConfig,
): Promise<{ namespaces: V1Namespace[]; pods: V1Pod[]; services: V1Service[]; policies: AccessPolicy[] }> {
  const c = clientsFor(kc);
  const [ns, pods, svcs, pols] = await Promise.all([
    c.core.listNamespace(),
    c.core.listPodForAllNamespaces(),
    c.core.listServiceForAllNamespaces(),
    c.custom.listClusterCustomObject({ group: 'example.rxkrt.dev', version: 'v1', plural: 'accesspolicies' }),
  ]);
  return { namespaces: ns.items, pods: pods.items, services: svcs.items, policies: (pols as { items: AccessPolicy[] }).items };
}

describe('workload registry over informers', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  it('should equal the same graph over static collections and a from-scratch computation after random churn', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const clients = clientsFor(kc);
    const rand = mulberry32(7);
    await seedCluster(clients, SHAPE, rand);

    const stop = h.stop();
    const opts = { stop, backoff: { initialMs: 10, maxMs: 100 } };
    const informers: RegistrySources = {
      namespaces: newInformer<V1Namespace>(kc, { apiVersion: 'v1', kind: 'Namespace' }, opts),
      pods: newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod' }, opts),
      services: newInformer<V1Service>(kc, { apiVersion: 'v1', kind: 'Service' }, opts),
      policies: newInformer<AccessPolicy>(kc, { apiVersion: POLICY_API_VERSION, kind: 'AccessPolicy' }, opts),
    };
    const replicas = Object.values(informers).map((c) => new Replica(c as Collection<KubernetesObject>));
    const overInformers = buildRegistry(informers, { stop });
    const overStatics = buildRegistry(
      {
        namespaces: mirror(informers.namespaces),
        pods: mirror(informers.pods),
        services: mirror(informers.services),
        policies: mirror(informers.policies),
      },
      { stop },
    );
    const writer = newStatusWriter(kc, overInformers.policyStatus, { stop, backoff: { initialMs: 10, maxMs: 200 } });
    expect(await overInformers.policyStatus.waitUntilSynced()).toBe(true);
    expect(snapshot(overInformers).workloads).toHaveLength(SHAPE.pods);

    // Churn, with the watches cut now and then.
    const live = new Set(informers.pods.list().map((p) => keyOf(p)));
    const nextPod = { n: SHAPE.pods };
    for (let i = 0; i < 80; i++) {
      await churnOnce(clients, SHAPE, rand, live, nextPod);
      if (i % 20 === 19) server.dropWatches();
    }

    // Wait until every informer holds what the server holds, and the writer has nothing left to do.
    const kinds: Array<[Collection<KubernetesObject>, string, string]> = [
      [informers.namespaces as Collection<KubernetesObject>, 'v1', 'Namespace'],
      [informers.pods as Collection<KubernetesObject>, 'v1', 'Pod'],
      [informers.services as Collection<KubernetesObject>, 'v1', 'Service'],
      [informers.policies as Collection<KubernetesObject>, POLICY_API_VERSION, 'AccessPolicy'],
    ];
    let state = await serverState(kc);
    let expected = sorted(registryFromScratch(state.namespaces, state.pods, state.services, state.policies));
    let why = '';
    await until(
      async () => {
        await writer.idle();
        for (const [c, apiVersion, kind] of kinds) {
          const canonical = (v: Record<string, string>): string => JSON.stringify(Object.entries(v).sort());
          const want = canonical(await serverVersions(kc, apiVersion, kind));
          const got = canonical(versions(c.list()));
          if (got !== want) {
            why = `${kind}: informer ${got} vs server ${want}`;
            return false;
          }
        }
        state = await serverState(kc);
        expected = sorted(registryFromScratch(state.namespaces, state.pods, state.services, state.policies));
        // Every policy on the server carries the status computed from scratch.
        const wrong = state.policies.find(
          (p) => JSON.stringify(p.status) !== JSON.stringify(expected.policyStatus.find((s) => s.key === keyOf(p))?.status),
        );
        why = wrong ? `${keyOf(wrong)} carries ${JSON.stringify(wrong.status)}; writer ${JSON.stringify(writer.stats)}` : '';
        return wrong === undefined;
      },
      () => `informers, server and written statuses to agree: ${why}`,
      15_000,
    );

    expect(snapshot(overInformers)).toEqual(expected);
    expect(snapshot(overStatics)).toEqual(snapshot(overInformers));
    for (const r of replicas) expect(r.violations).toEqual([]);
    expect(writer.stats.failures).toBe(0);
    expect(writer.stats.writes).toBeGreaterThanOrEqual(SHAPE.policies);
    // The churn really moved things: pods came and went.
    expect(state.pods.length).not.toBe(SHAPE.pods);
  });
});
