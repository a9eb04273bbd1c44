// The end state the controller must reach, computed from scratch from the gadgets alone, and the state the
// server actually holds, in the same shape: a test compares the two.
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { keyOf } from 'rxkrt';
import { findCondition } from 'rxkrt/kube';
import { GROUP, FINALIZER, MANAGER, configMapName, desiredData, ownerOf, type Gadget } from './types.js';

/** What the controller is responsible for, by key. */
export interface ControllerState {
  configMaps: Record<string, { data: Record<string, string>; owner: string | undefined }>;
  gadgets: Record<
    string,
    { finalizer: boolean; ready: string | undefined; observedGeneration: number | undefined; configMap: string | undefined }
  >;
}

/** What a correct controller leaves behind for these gadgets (none of them being deleted). */
export function expectedState(gadgets: readonly Gadget[]): ControllerState {
  const out: ControllerState = { configMaps: {}, gadgets: {} };
  for (const g of gadgets) {
    const md = g.metadata!;
    out.configMaps[`${md.namespace}/${configMapName(md.name!)}`] = { data: desiredData(g), owner: md.uid };
    out.gadgets[keyOf(g)] = { finalizer: true, ready: 'True', observedGeneration: md.generation, configMap: configMapName(md.name!) };
  }
  return out;
}

/** What the server holds: every gadget, and every ConfigMap the controller manages. */
export async function observedState(kc: KubeConfig): Promise<{ gadgets: Gadget[]; state: ControllerState }> {
  const list = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group: GROUP, version: 'v1', plural: 'gadgets' })) as {
    items: Gadget[];
  };
  const maps = await kc
    .makeApiClient(CoreV1Api)
    .listConfigMapForAllNamespaces({ labelSelector: `app.kubernetes.io/managed-by=${MANAGER}` });
  const state: ControllerState = { configMaps: {}, gadgets: {} };
  for (const cm of maps.items as V1ConfigMap[]) {
    state.configMaps[`${cm.metadata!.namespace}/${cm.metadata!.name}`] = { data: cm.data ?? {}, owner: ownerOf(cm)?.uid };
  }
  for (const g of list.items) {
    const ready = findCondition(g.status?.conditions, 'Ready');
    state.gadgets[keyOf(g)] = {
      finalizer: (g.metadata?.finalizers ?? []).includes(FINALIZER),
      ready: ready?.status,
      observedGeneration: ready?.observedGeneration,
      configMap: g.status?.configMap,
    };
  }
  return { gadgets: list.items, state };
}

/** Installs the Gadget CRD (namespaced, with a status subresource). */
export async function installGadgetCrd(kc: KubeConfig): Promise<void> {
  await kc.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
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
