// B3's data set (krt issue #60366): one namespace of pods, policies that all select by `app=web`, and the
// policies' resolved form.
import type { IpAllocator, Pod } from './fixtures.js';

export const POLICIES = 500;
export const PODS = 10_000;
export const NS = 'ns-0';

export interface Policy {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: { readonly selector: Readonly<Record<string, string>> };
}

/** A policy's resolved form: the addresses of the pods it selects (what a proxy config would carry). */
export interface ResolvedPolicy {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly addresses: readonly string[];
}

export function makePods(ips: IpAllocator, count = PODS): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      metadata: { name: `pod-${i}`, namespace: NS, labels: { app: 'web', version: `v${i % 3}` } },
      spec: { serviceAccountName: 'fake-sa' },
      status: { phase: 'Running', podIP: ips.allocate() },
    });
  }
  return out;
}

export function makePolicies(): Policy[] {
  const out: Policy[] = [];
  for (let i = 0; i < POLICIES; i++) out.push({ metadata: { name: `policy-${i}`, namespace: NS }, spec: { selector: { app: 'web' } } });
  return out;
}

/** The policy resolved against the pods `labelsMatch` accepts (those with an IP). */
export function resolve(p: Policy, pods: Iterable<Pod>, labelsMatch: (pod: Pod) => boolean): ResolvedPolicy {
  const addresses: string[] = [];
  for (const pod of pods) if (labelsMatch(pod) && pod.status.podIP !== undefined) addresses.push(pod.status.podIP);
  return { metadata: p.metadata, addresses };
}

/** Label selection as `filterLabel` does it: every pair of the selector among the pod's labels (empty: every pod). */
export function matchLabels(selector: Readonly<Record<string, string>>, pod: Pod): boolean {
  for (const k in selector) if (pod.metadata.labels[k] !== selector[k]) return false;
  return true;
}
