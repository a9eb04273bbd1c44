// The registry computed naively from lists: the reference the incremental result must always equal.
import { isSubset, selectsNonEmpty } from 'rxkrt';
import { policyStatusFor } from './registry.js';
import type { AccessPolicy, AccessPolicyStatus, ServiceEndpoints, V1Namespace, V1Pod, V1Service, Workload } from './types.js';

export interface ScratchResult {
  workloads: Workload[];
  serviceEndpoints: ServiceEndpoints[];
  policyStatus: Array<{ key: string; status: AccessPolicyStatus }>;
}

/** Recomputes everything from scratch (O(pods × (services + policies))). */
export function registryFromScratch(
  namespaces: V1Namespace[],
  pods: V1Pod[],
  services: V1Service[],
  policies: AccessPolicy[],
): ScratchResult {
  const liveNs = new Set(namespaces.filter((n) => n.status?.phase !== 'Terminating').map((n) => n.metadata?.name ?? ''));
  const workloads: Workload[] = [];
  for (const pod of pods) {
    const ns = pod.metadata?.namespace ?? '';
    const ip = pod.status?.podIP;
    if (!ip || !liveNs.has(ns)) continue;
    const labels = pod.metadata?.labels ?? {};
    workloads.push({
      metadata: { name: pod.metadata?.name ?? '', namespace: ns },
      ip,
      labels,
      node: pod.spec?.nodeName,
      services: services
        .filter((s) => s.metadata?.namespace === ns && selectsNonEmpty(s.spec?.selector ?? {}, labels))
        .map((s) => s.metadata?.name ?? '')
        .sort(),
      policies: policies
        .filter((p) => p.metadata?.namespace === ns && isSubset(p.spec?.selector?.matchLabels ?? {}, labels))
        .map((p) => p.metadata?.name ?? '')
        .sort(),
    });
  }
  const serviceEndpoints = services.map((svc) => {
    const ns = svc.metadata?.namespace ?? '';
    const sel = svc.spec?.selector ?? {};
    const behind = Object.keys(sel).length === 0 ? [] : workloads.filter((w) => w.metadata.namespace === ns && isSubset(sel, w.labels));
    return {
      metadata: { name: svc.metadata?.name ?? '', namespace: ns },
      endpoints: behind.map((w) => ({ pod: w.metadata.name, ip: w.ip })).sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0)),
    };
  });
  const policyStatus = policies.map((p) => {
    const ns = p.metadata?.namespace ?? '';
    const matched = workloads.filter((w) => w.metadata.namespace === ns && isSubset(p.spec?.selector?.matchLabels ?? {}, w.labels)).length;
    return { key: `${ns}/${p.metadata?.name ?? ''}`, status: policyStatusFor(p, matched) };
  });
  return { workloads, serviceEndpoints, policyStatus };
}
