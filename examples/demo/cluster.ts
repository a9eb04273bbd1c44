// Seeding and churning a cluster through client-node: namespaces, pods, services, AccessPolicies.
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { seededRandom } from 'rxkrt/testing';
import { POLICY_GROUP, POLICY_VERSION, type AccessPolicy } from '../workload-registry/types.js';

/** A small deterministic PRNG, so a seed reproduces a run. */
export const mulberry32 = seededRandom;

export interface ClusterShape {
  namespaces: number;
  pods: number;
  services: number;
  policies: number;
}

const APPS = 12;
const TIERS = ['web', 'api', 'db'];

/** The client-node APIs the demo writes through. */
export interface Clients {
  core: CoreV1Api;
  custom: CustomObjectsApi;
  ext: ApiextensionsV1Api;
}

export function clientsFor(kc: KubeConfig): Clients {
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi), ext: kc.makeApiClient(ApiextensionsV1Api) };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Registers the AccessPolicy CRD (namespaced, with a status subresource). */
export async function installPolicyCrd(c: Clients): Promise<void> {
  await c.ext.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `accesspolicies.${POLICY_GROUP}` },
      spec: {
        group: POLICY_GROUP,
        scope: 'Namespaced',
        names: { plural: 'accesspolicies', singular: 'accesspolicy', kind: 'AccessPolicy', listKind: 'AccessPolicyList' },
        versions: [
          {
            name: POLICY_VERSION,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          },
        ],
      },
    },
  });
}

let ipCounter = 0;
/** A fresh pod IP (10.x.y.z), never reused in a process. */
export function nextIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

function podLabels(rand: () => number): Record<string, string> {
  return { app: `app-${Math.floor(rand() * APPS)}`, tier: TIERS[Math.floor(rand() * TIERS.length)]! };
}

/** Creates a pod and gives it an IP through the status subresource, as a kubelet would. */
export async function createPod(c: Clients, ns: string, name: string, rand: () => number): Promise<void> {
  await c.core.createNamespacedPod({
    namespace: ns,
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: podLabels(rand) },
      spec: { containers: [{ name: 'app', image: 'example/app:1' }], nodeName: `node-${Math.floor(rand() * 5)}` },
    },
  });
  await setPodIp(c, ns, name);
}

export async function setPodIp(c: Clients, ns: string, name: string): Promise<void> {
  await c.core.patchNamespacedPodStatus({ name, namespace: ns, body: { status: { phase: 'Running', podIP: nextIp() } } }, mergePatch);
}

/** Seeds a realistic cluster: namespaces, labelled pods with IPs, services and policies selecting them. */
export async function seedCluster(c: Clients, shape: ClusterShape, rand: () => number): Promise<void> {
  await installPolicyCrd(c);
  for (let n = 0; n < shape.namespaces; n++)
    await c.core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${n}` } } });
  const work: Array<Promise<void>> = [];
  for (let i = 0; i < shape.pods; i++) {
    work.push(createPod(c, `team-${i % shape.namespaces}`, `pod-${i}`, rand));
    if (work.length >= 16) await Promise.all(work.splice(0));
  }
  for (let i = 0; i < shape.services; i++) {
    const ns = `team-${i % shape.namespaces}`;
    work.push(
      c.core
        .createNamespacedService({
          namespace: ns,
          body: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: `svc-${i}`, namespace: ns },
            spec: { selector: { app: `app-${i % APPS}` }, ports: [{ port: 80 }] },
          },
        })
        .then(() => undefined),
    );
  }
  for (let i = 0; i < shape.policies; i++) {
    const ns = `team-${i % shape.namespaces}`;
    const policy: AccessPolicy = {
      apiVersion: `${POLICY_GROUP}/${POLICY_VERSION}`,
      kind: 'AccessPolicy',
      metadata: { name: `policy-${i}`, namespace: ns },
      spec: { selector: { matchLabels: { tier: TIERS[i % TIERS.length]! } }, allow: ['team-0'] },
    };
    work.push(
      c.custom
        .createNamespacedCustomObject({
          group: POLICY_GROUP,
          version: POLICY_VERSION,
          namespace: ns,
          plural: 'accesspolicies',
          body: policy,
        })
        .then(() => undefined),
    );
  }
  await Promise.all(work);
}

/**
 * One random change: an IP change, a relabel, a scale up or down, or a policy edit. `beforeWrite` hears
 * which pod is about to change (latency is measured from there). Returns the kind of change.
 */
export async function churnOnce(
  c: Clients,
  shape: ClusterShape,
  rand: () => number,
  live: Set<string>,
  nextPod: { n: number },
  beforeWrite: (podKey: string) => void = () => {},
): Promise<{ op: string; podKey?: string }> {
  const r = rand();
  const keys = [...live];
  const pick = (): string => keys[Math.floor(rand() * keys.length)]!;
  if (r < 0.45 && keys.length > 0) {
    const key = pick();
    const [ns, name] = key.split('/') as [string, string];
    beforeWrite(key);
    await setPodIp(c, ns, name);
    return { op: 'ip', podKey: key };
  }
  if (r < 0.65 && keys.length > 0) {
    const key = pick();
    const [ns, name] = key.split('/') as [string, string];
    beforeWrite(key);
    await c.core.patchNamespacedPod({ name, namespace: ns, body: { metadata: { labels: podLabels(rand) } } }, mergePatch);
    return { op: 'relabel', podKey: key };
  }
  if (r < 0.8) {
    const ns = `team-${Math.floor(rand() * shape.namespaces)}`;
    const name = `pod-${nextPod.n++}`;
    beforeWrite(`${ns}/${name}`);
    await createPod(c, ns, name, rand);
    live.add(`${ns}/${name}`);
    return { op: 'scale-up', podKey: `${ns}/${name}` };
  }
  if (r < 0.92 && keys.length > 0) {
    const key = pick();
    const [ns, name] = key.split('/') as [string, string];
    live.delete(key);
    beforeWrite(key);
    await c.core.deleteNamespacedPod({ name, namespace: ns });
    return { op: 'scale-down', podKey: key };
  }
  const i = Math.floor(rand() * shape.policies);
  await c.custom.patchNamespacedCustomObject(
    {
      group: POLICY_GROUP,
      version: POLICY_VERSION,
      namespace: `team-${i % shape.namespaces}`,
      plural: 'accesspolicies',
      name: `policy-${i}`,
      body: { spec: { selector: { matchLabels: { tier: TIERS[Math.floor(rand() * TIERS.length)]! } } } },
    },
    mergePatch,
  );
  return { op: 'policy-edit' };
}

export type { V1Pod };
