// The patch merge keys and strategies of the built-in kinds, as the Go struct tags of k8s.io/api declare them.

/** How strategic merge patch treats one field (`patchStrategy` and `patchMergeKey` struct tags). */
export interface FieldPatchMeta {
  /** `merge`: a list merged item by item (by `mergeKey`, or as a set of scalars); `retainKeys`: see `$retainKeys`. */
  readonly strategies: ReadonlyArray<'merge' | 'retainKeys'>;
  /** The field that identifies an item of a merged list of objects. */
  readonly mergeKey?: string;
}

/**
 * A kind's patch metadata by field path: names joined by dots, list items adding no segment
 * (`spec.containers.env` is the `env` of every item of `spec.containers`). A field it does not name has no
 * strategy: objects merge key by key and lists are replaced whole.
 */
export type PatchSchema = (path: string) => FieldPatchMeta | undefined;

const merge = (mergeKey?: string): FieldPatchMeta => ({ strategies: ['merge'], mergeKey });
const mergeRetainingKeys = (mergeKey: string): FieldPatchMeta => ({ strategies: ['merge', 'retainKeys'], mergeKey });
const RETAIN_KEYS: FieldPatchMeta = { strategies: ['retainKeys'] };

type Fields = Record<string, FieldPatchMeta>;

/** `fields` moved under `prefix`. */
function under(prefix: string, fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).map(([path, meta]) => [`${prefix}.${path}`, meta]));
}

// core/v1 ObjectMeta (apimachinery's meta/v1).
const OBJECT_META: Fields = { finalizers: merge(), ownerReferences: merge('uid') };

// core/v1 Container; EphemeralContainerCommon declares the same four.
const CONTAINER: Fields = {
  ports: merge('containerPort'),
  env: merge('name'),
  volumeMounts: merge('mountPath'),
  volumeDevices: merge('devicePath'),
};

// core/v1 PodSpec. `tolerations`, `readinessGates` and `resourceClaims`' items carry no tags of their own:
// tolerations are replaced whole, as the Kubernetes docs' "kubectl patch" task shows.
const POD_SPEC: Fields = {
  volumes: mergeRetainingKeys('name'),
  initContainers: merge('name'),
  containers: merge('name'),
  ephemeralContainers: merge('name'),
  imagePullSecrets: merge('name'),
  hostAliases: merge('ip'),
  topologySpreadConstraints: merge('topologyKey'),
  schedulingGates: merge('name'),
  resourceClaims: mergeRetainingKeys('name'),
  ...under('initContainers', CONTAINER),
  ...under('containers', CONTAINER),
  ...under('ephemeralContainers', CONTAINER),
};

const POD_STATUS: Fields = {
  conditions: merge('type'),
  podIPs: merge('ip'),
  hostIPs: merge('ip'),
  resourceClaimStatuses: mergeRetainingKeys('name'),
};

const POD_TEMPLATE: Fields = { ...under('metadata', OBJECT_META), ...under('spec', POD_SPEC) };
const CONDITIONS_BY_TYPE: Fields = { 'status.conditions': merge('type') };
/** A workload whose `spec.template` is a pod template and whose conditions merge by type. */
const WORKLOAD: Fields = { ...under('spec.template', POD_TEMPLATE), ...CONDITIONS_BY_TYPE };

/** Fields beyond `metadata`, by `group/Kind` (`v1` kinds under an empty group: `/Pod`). */
const BY_KIND: Record<string, Fields> = {
  '/Pod': { ...under('spec', POD_SPEC), ...under('status', POD_STATUS) },
  '/PodTemplate': under('template', POD_TEMPLATE),
  '/ReplicationController': WORKLOAD,
  '/Service': { 'spec.ports': merge('port'), ...CONDITIONS_BY_TYPE },
  '/ServiceAccount': { secrets: merge('name') },
  '/Node': { 'spec.podCIDRs': merge(), ...CONDITIONS_BY_TYPE, 'status.addresses': merge('type') },
  '/Namespace': CONDITIONS_BY_TYPE,
  '/PersistentVolumeClaim': CONDITIONS_BY_TYPE,
  'apps/Deployment': { ...WORKLOAD, 'spec.strategy': RETAIN_KEYS },
  'apps/StatefulSet': WORKLOAD,
  'apps/DaemonSet': WORKLOAD,
  'apps/ReplicaSet': WORKLOAD,
  'batch/Job': WORKLOAD,
  'batch/CronJob': {
    ...under('spec.jobTemplate.metadata', OBJECT_META),
    ...under('spec.jobTemplate.spec.template', POD_TEMPLATE),
  },
};

const schemas = new Map<string, ReadonlyMap<string, FieldPatchMeta>>();

/**
 * The strategic merge patch metadata of a built-in kind. Every kind has `metadata.finalizers` (a set) and
 * `metadata.ownerReferences` (by `uid`); the table adds the rest for core/v1, apps/v1 and batch/v1, including
 * the pod templates inside workloads, so a kind starts merging its lists as soon as the server serves it.
 */
export function patchSchemaFor(group: string, kind: string): PatchSchema {
  const key = `${group}/${kind}`;
  let table = schemas.get(key);
  if (!table) {
    table = new Map(Object.entries({ ...under('metadata', OBJECT_META), ...BY_KIND[key] }));
    schemas.set(key, table);
  }
  const found = table;
  return (path) => found.get(path);
}
