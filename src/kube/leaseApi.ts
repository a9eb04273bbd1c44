// The Lease requests leader election and the shard ring make, as raw JSON through client-node's HTTP stack.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError } from './apiError.js';
import { requestJson, type RequestOptions } from './request.js';
import type { Lease } from './leaseRecord.js';

const API_VERSION = 'coordination.k8s.io/v1';

function leasesPath(namespace: string): string {
  return `/apis/${API_VERSION}/namespaces/${encodeURIComponent(namespace)}/leases`;
}

/** The Lease, or undefined when there is none. */
export async function getLease(kc: KubeConfig, namespace: string, name: string, opts: RequestOptions): Promise<Lease | undefined> {
  try {
    return (await requestJson(kc, 'GET', `${leasesPath(namespace)}/${encodeURIComponent(name)}`, {}, undefined, opts)) as Lease;
  } catch (e) {
    if (e instanceof ApiError && e.statusCode === 404) return undefined;
    throw e;
  }
}

/** Creates the Lease; an ApiError 409 when it exists already. */
export async function createLease(kc: KubeConfig, namespace: string, lease: Lease, opts: RequestOptions): Promise<Lease> {
  const body = { apiVersion: API_VERSION, kind: 'Lease', ...lease, metadata: { ...lease.metadata, namespace } };
  return (await requestJson(kc, 'POST', leasesPath(namespace), {}, { contentType: 'application/json', value: body }, opts)) as Lease;
}

/** Replaces the Lease if its `metadata.resourceVersion` is still current; an ApiError 409 otherwise. */
export async function updateLease(kc: KubeConfig, namespace: string, lease: Lease, opts: RequestOptions): Promise<Lease> {
  const body = { apiVersion: API_VERSION, kind: 'Lease', ...lease, metadata: { ...lease.metadata, namespace } };
  const path = `${leasesPath(namespace)}/${encodeURIComponent(lease.metadata.name ?? '')}`;
  return (await requestJson(kc, 'PUT', path, {}, { contentType: 'application/json', value: body }, opts)) as Lease;
}

/** The Leases matching a label selector, with the list's resourceVersion. */
export async function listLeases(kc: KubeConfig, namespace: string, labelSelector: string, opts: RequestOptions): Promise<Lease[]> {
  const list = (await requestJson(kc, 'GET', leasesPath(namespace), { labelSelector }, undefined, opts)) as { items?: Lease[] };
  return list.items ?? [];
}
