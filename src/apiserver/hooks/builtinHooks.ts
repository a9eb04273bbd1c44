// Per-kind rules of the built-in kinds: defaults; namespace labels, status and cascade; pod status; Service addresses;
// Job selectors; secret stringData; config data.
import { isJsonObject, objectField } from '../apimachinery/json.js';
import { invalid } from '../apimachinery/statusError.js';
import type { KindHooks } from '../state/serverState.js';
import { CRD_STORAGE_KEY } from '../kinds/crdKinds.js';
import { validateConfigData } from './configData.js';
import { crdHooks } from './crd.js';
import { defaultPodSpec } from './podDefaults.js';
import { allocateServiceAddresses } from './serviceAllocation.js';
import { defaultService } from './serviceDefaults.js';
import { WORKLOAD_DEFAULTS } from './workloadDefaults.js';

const CRONJOB_NAME_MAX = 52;

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
  defaults(obj) {
    defaultPodSpec(isJsonObject(obj.spec) ? obj.spec : (obj.spec = {}), true);
  },
  prepare(obj, before) {
    // Status is reset on create (Pods have a status subresource); a new pod is Pending until a kubelet says otherwise.
    if (!before) obj.status = { phase: 'Pending' };
  },
};

const serviceHooks: KindHooks = {
  defaults: (obj, before) => defaultService(obj, before),
  prepare(obj, before, state) {
    const rt = state.registry.byKind('v1', 'Service')!;
    allocateServiceAddresses(obj, before, state, rt);
  },
};

const jobHooks: KindHooks = {
  defaults: (obj) => WORKLOAD_DEFAULTS.get('batch/jobs')!(obj),
  prepare(obj, before) {
    if (before) return;
    // A Job selects its pods by its own uid unless the author picked a selector (`manualSelector: true`).
    const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
    if (spec.manualSelector === true) return;
    const { uid, name } = obj.metadata;
    spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    const template = isJsonObject(spec.template) ? spec.template : (spec.template = {});
    const meta = isJsonObject(template.metadata) ? template.metadata : (template.metadata = {});
    const labels = isJsonObject(meta.labels) ? meta.labels : (meta.labels = {});
    Object.assign(labels, {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    });
  },
};

const cronJobHooks: KindHooks = {
  defaults: (obj) => WORKLOAD_DEFAULTS.get('batch/cronjobs')!(obj),
  validate(obj, before, rt) {
    // The Jobs a CronJob makes are named after it plus an 11-character suffix, and must still fit in a label value.
    const name = obj.metadata.name;
    if (!before && name.length > CRONJOB_NAME_MAX) {
      const message = `Invalid value: ${JSON.stringify(name)}: must be no more than ${CRONJOB_NAME_MAX} characters`;
      throw invalid(rt.kind, name, [{ field: 'metadata.name', message }], rt.group);
    }
  },
};

const pvcHooks: KindHooks = {
  defaults(obj) {
    const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
    if (!spec.volumeMode) spec.volumeMode = 'Filesystem';
  },
  prepare(obj, before) {
    // Status is reset on create (status subresource); a new claim is Pending until a binder says otherwise.
    if (!before) obj.status = { phase: 'Pending' };
  },
};

const secretHooks: KindHooks = {
  defaults(obj) {
    if (!obj.type) obj.type = 'Opaque';
  },
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
  const workloads = [...WORKLOAD_DEFAULTS].filter(([key]) => key !== 'batch/jobs' && key !== 'batch/cronjobs');
  return new Map<string, KindHooks>([
    ...workloads.map(([key, fill]): [string, KindHooks] => [key, { defaults: (obj) => fill(obj) }]),
    ['batch/jobs', jobHooks],
    ['batch/cronjobs', cronJobHooks],
    ['/namespaces', namespaceHooks],
    ['/pods', podHooks],
    ['/services', serviceHooks],
    ['/persistentvolumeclaims', pvcHooks],
    ['/secrets', secretHooks],
    ['/configmaps', configMapHooks],
    [CRD_STORAGE_KEY, crdHooks],
  ]);
}
