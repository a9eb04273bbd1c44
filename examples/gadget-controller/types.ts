// The Gadget custom resource and what the controller derives from it.
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import type { Condition } from 'rxkrt/kube';

export const GROUP = 'gadgets.rxkrt.dev';
export const API_VERSION = `${GROUP}/v1`;
export const FINALIZER = `${GROUP}/cleanup`;
export const MANAGER = 'gadget-controller';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': MANAGER };

/** A Gadget: a colour and a size, which the controller mirrors into a ConfigMap it owns. */
export interface Gadget extends KubernetesObject {
  spec: { color: string; size: number };
  status?: { configMap?: string; conditions?: Condition[] };
}

/** The name of the ConfigMap a gadget owns. */
export const configMapName = (gadgetName: string): string => `gadget-${gadgetName}`;

/** The data a gadget's ConfigMap must hold. */
export const desiredData = (g: Gadget): Record<string, string> => ({ color: g.spec.color, size: String(g.spec.size) });

/** The gadget a ConfigMap names as its controller, if any. */
export function ownerOf(cm: V1ConfigMap): { name: string; uid: string } | undefined {
  const ref = cm.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Gadget' && r.apiVersion === API_VERSION);
  return ref === undefined ? undefined : { name: ref.name, uid: ref.uid };
}
