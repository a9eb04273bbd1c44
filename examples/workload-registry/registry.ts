// The workload registry: Namespaces, Pods, Services and AccessPolicies become Workloads, ServiceEndpoints and policy status.
import {
  filterIndex,
  filterKey,
  filterLabel,
  filterSelects,
  filterSelectsNonEmpty,
  fetch,
  fetchOne,
  newCollection,
  newIndex,
  newNamespaceIndex,
  newStatusCollection,
  partialFetch,
  type Collection,
  type CollectionOptions,
  type ObjectWithStatus,
} from 'rxkrt';
import type { AccessPolicy, AccessPolicyStatus, ServiceEndpoints, V1Namespace, V1Pod, V1Service, Workload } from './types.js';

/** The sources the registry reads: informers in production, static collections in tests. */
export interface RegistrySources {
  namespaces: Collection<V1Namespace>;
  pods: Collection<V1Pod>;
  services: Collection<V1Service>;
  policies: Collection<AccessPolicy>;
}

/** What the registry derives. */
export interface Registry {
  workloads: Collection<Workload>;
  serviceEndpoints: Collection<ServiceEndpoints>;
  policyStatus: Collection<ObjectWithStatus<AccessPolicy, AccessPolicyStatus>>;
}

/** Builds the registry's derived collections over any sources. */
export function buildRegistry(src: RegistrySources, opts: Pick<CollectionOptions, 'stop' | 'debugger'> = {}): Registry {
  const servicesByNamespace = newNamespaceIndex(src.services);
  const policiesByNamespace = newNamespaceIndex(src.policies);

  const workloads = newCollection<V1Pod, Workload>(
    src.pods,
    (ctx, pod) => {
      const ip = pod.status?.podIP;
      const ns = pod.metadata?.namespace ?? '';
      // A pod without an IP is not a workload yet; one in a terminating namespace is not one any more.
      if (!ip) return undefined;
      const namespace = fetchOne(ctx, src.namespaces, filterKey(ns));
      if (namespace === undefined || namespace.status?.phase === 'Terminating') return undefined;
      const labels = pod.metadata?.labels ?? {};
      const services = fetch(ctx, src.services, filterIndex(servicesByNamespace, ns), filterSelectsNonEmpty(labels));
      // Only a policy's name and selector matter here: its status writes must not recompute workloads.
      const policies = partialFetch(
        ctx,
        src.policies,
        (p) => p.metadata?.name ?? '',
        filterIndex(policiesByNamespace, ns),
        filterSelects(labels),
      );
      return {
        metadata: { name: pod.metadata?.name ?? '', namespace: ns },
        ip,
        labels,
        node: pod.spec?.nodeName,
        services: services.map((s) => s.metadata?.name ?? '').sort(),
        policies: [...policies].sort(),
      };
    },
    { ...opts, name: 'Workloads' },
  );

  const workloadsByNamespace = newIndex(workloads, 'namespace', (w) => [w.metadata.namespace]);

  const serviceEndpoints = newCollection<V1Service, ServiceEndpoints>(
    src.services,
    (ctx, svc) => {
      const ns = svc.metadata?.namespace ?? '';
      const selector = svc.spec?.selector ?? {};
      // A service without a selector has no endpoints we can compute (as in Kubernetes).
      const behind =
        Object.keys(selector).length === 0 ? [] : fetch(ctx, workloads, filterIndex(workloadsByNamespace, ns), filterLabel(selector));
      return {
        metadata: { name: svc.metadata?.name ?? '', namespace: ns },
        endpoints: behind.map((w) => ({ pod: w.metadata.name, ip: w.ip })).sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0)),
      };
    },
    { ...opts, name: 'ServiceEndpoints' },
  );

  const [policyStatus] = newStatusCollection<AccessPolicy, AccessPolicyStatus, never>(
    src.policies,
    (ctx, policy) => {
      const ns = policy.metadata?.namespace ?? '';
      const matched = fetch(ctx, workloads, filterIndex(workloadsByNamespace, ns), filterLabel(policy.spec?.selector?.matchLabels ?? {}));
      return { status: policyStatusFor(policy, matched.length) };
    },
    { ...opts, name: 'AccessPolicies' },
  );

  return { workloads, serviceEndpoints, policyStatus };
}

/** The status an AccessPolicy should carry when it matches `matched` workloads. */
export function policyStatusFor(policy: AccessPolicy, matched: number): AccessPolicyStatus {
  const ready = matched > 0;
  return {
    matchedWorkloads: matched,
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'WorkloadsMatched' : 'NoWorkloads',
        message: ready ? `selects ${matched} workload(s)` : 'selects no running workload',
        observedGeneration: policy.metadata?.generation,
      },
    ],
  };
}
