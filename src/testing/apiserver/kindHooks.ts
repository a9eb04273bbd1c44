// Per-kind rules of the built-in kinds: namespace labels, status and cascading deletion; pod status.
import { CRD_STORAGE_KEY, crdHooks } from './crd.js';
import { isJsonObject, objectField } from './json.js';
import type { KindHooks } from './serverState.js';

const namespaceHooks: KindHooks = {
  prepare(obj) {
    // Since Kubernetes 1.21 every namespace carries its own name as a label, so selectors can pick it.
    const labels = isJsonObject(obj.metadata.labels) ? obj.metadata.labels : (obj.metadata.labels = {});
    labels['kubernetes.io/metadata.name'] = obj.metadata.name;
    const status = objectField(obj, 'status');
    if (!status?.phase) obj.status = { ...(status ?? {}), phase: 'Active' };
  },
  beforeRemove(obj, state) {
    // A real server's namespace controller empties a terminating namespace; we do it at once and
    // ignore finalizers on the contents (a namespace delete is final here).
    for (const { storageKey, object } of state.store.inNamespace(obj.metadata.name)) {
      state.store.remove(storageKey, structuredClone(object));
    }
  },
};

const podHooks: KindHooks = {
  prepare(obj, before) {
    // Status is reset on create (Pods have a status subresource); a new pod is Pending until a kubelet says otherwise.
    if (!before && !isJsonObject(obj.status)) obj.status = { phase: 'Pending' };
  },
};

/** Hooks of the built-in kinds, keyed by storage key. */
export function builtinHooks(): Map<string, KindHooks> {
  return new Map<string, KindHooks>([
    ['/namespaces', namespaceHooks],
    ['/pods', podHooks],
    [CRD_STORAGE_KEY, crdHooks],
  ]);
}
