// The shapes the workload registry reads and writes.
import type { KubernetesObject, V1Namespace, V1Pod, V1Service } from '@kubernetes/client-node';

export type { V1Namespace, V1Pod, V1Service };

/** An AccessPolicy (group example.rxkrt.dev/v1): selects pods by labels in its own namespace. */
export interface AccessPolicy extends KubernetesObject {
  spec?: { selector?: { matchLabels?: Record<string, string> }; allow?: string[] };
  status?: AccessPolicyStatus;
}

export interface AccessPolicyStatus {
  matchedWorkloads: number;
  conditions: Array<{ type: 'Ready'; status: 'True' | 'False'; reason: string; message: string; observedGeneration?: number }>;
}

/** A running pod with the services that select it and the policies that apply to it. */
export interface Workload {
  metadata: { name: string; namespace: string };
  ip: string;
  labels: Record<string, string>;
  node?: string;
  services: string[];
  policies: string[];
}

/** A service and the workloads behind it. */
export interface ServiceEndpoints {
  metadata: { name: string; namespace: string };
  endpoints: Array<{ pod: string; ip: string }>;
}

export const POLICY_GROUP = 'example.rxkrt.dev';
export const POLICY_VERSION = 'v1';
export const POLICY_API_VERSION = `${POLICY_GROUP}/${POLICY_VERSION}`;
