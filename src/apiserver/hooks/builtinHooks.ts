// Per-kind rules of the built-in kinds: namespace labels, status and cascade; pod status; secret stringData; config data.
import { isJsonObject, objectField } from '../apimachinery/json.js';
import type { KindHooks } from '../state/serverState.js';
import { CRD_STORAGE_KEY } from '../kinds/crdKinds.js';
import { validateConfigData } from './configData.js';
import { crdHooks } from './crd.js';

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

const secretHooks: KindHooks = {
  prepare(obj) {
    // A real server folds the write-only `stringData` into base64 `data` and never stores it.
    const stringData = objectField(obj, 'stringData');
    if (!stringData) return;
    const data = objectField(obj, 'data') ?? {};
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj.data = data;
    delete obj.stringData;
  },
  validate: (obj, _before, rt) => validateConfigData(obj, rt),
};

const configMapHooks: KindHooks = {
  validate: (obj, _before, rt) => validateConfigData(obj, rt),
};

/** Hooks of the built-in kinds, keyed by storage key. */
export function builtinHooks(): Map<string, KindHooks> {
  return new Map<string, KindHooks>([
    ['/namespaces', namespaceHooks],
    ['/pods', podHooks],
    ['/secrets', secretHooks],
    ['/configmaps', configMapHooks],
    [CRD_STORAGE_KEY, crdHooks],
  ]);
}
