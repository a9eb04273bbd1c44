// The defaults kube-apiserver fills into the workload kinds (apps/v1, batch/v1, ReplicationController) and their templates.
import { isJsonObject, objectField, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { defaultPodTemplate } from './podDefaults.js';

type Defaulter = (obj: JsonObject) => void;

/**
 * The defaulting function of each workload kind, keyed by storage key; each also defaults its pod template (a
 * CronJob's is inside `spec.jobTemplate`). Values are kube-apiserver 1.32's:
 *
 * - Deployment: `replicas: 1`; `strategy` RollingUpdate with `maxUnavailable`/`maxSurge` `25%`;
 *   `revisionHistoryLimit: 10`; `progressDeadlineSeconds: 600`.
 * - ReplicaSet, ReplicationController: `replicas: 1` (an RC also takes its selector and labels from its template).
 * - StatefulSet: `replicas: 1`, `podManagementPolicy: OrderedReady`, `updateStrategy` RollingUpdate with
 *   `partition: 0`, `revisionHistoryLimit: 10`, `persistentVolumeClaimRetentionPolicy` Retain/Retain.
 * - DaemonSet: `updateStrategy` RollingUpdate with `maxUnavailable: 1`, `maxSurge: 0`; `revisionHistoryLimit: 10`.
 * - Job: `parallelism: 1` (and `completions: 1` when neither is set), `backoffLimit: 6`, `completionMode: NonIndexed`,
 *   `suspend: false`, `podReplacementPolicy: TerminatingOrFailed` (`Failed` with a pod failure policy), and the
 *   template's labels as the Job's when it has none; `manualSelector` jobs keep their own selector.
 * - CronJob: `concurrencyPolicy: Allow`, `suspend: false`, `successfulJobsHistoryLimit: 3`,
 *   `failedJobsHistoryLimit: 1`, and the Job defaults inside `jobTemplate.spec` (but for the Job's own labels).
 */
export const WORKLOAD_DEFAULTS: ReadonlyMap<string, Defaulter> = new Map<string, Defaulter>([
  ['apps/deployments', withSpec(defaultDeployment)],
  ['apps/replicasets', withSpec((spec) => setIfAbsent(spec, 'replicas', 1))],
  ['apps/statefulsets', withSpec(defaultStatefulSet)],
  ['apps/daemonsets', withSpec(defaultDaemonSet)],
  ['batch/jobs', defaultJob],
  ['batch/cronjobs', withSpec(defaultCronJob)],
  ['/replicationcontrollers', defaultReplicationController],
]);

function withSpec(fill: (spec: JsonObject, obj: JsonObject) => void): Defaulter {
  return (obj) => {
    const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
    fill(spec, obj);
    defaultPodTemplate(spec);
  };
}

function defaultDeployment(spec: JsonObject): void {
  setIfAbsent(spec, 'replicas', 1);
  const strategy = object(spec, 'strategy');
  setIfAbsent(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = object(strategy, 'rollingUpdate');
    setIfAbsent(rolling, 'maxUnavailable', '25%');
    setIfAbsent(rolling, 'maxSurge', '25%');
  }
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
  setIfAbsent(spec, 'progressDeadlineSeconds', 600);
}

function defaultStatefulSet(spec: JsonObject): void {
  setIfAbsent(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = object(spec, 'updateStrategy');
  if (strategy.type === undefined || strategy.type === '') {
    strategy.type = 'RollingUpdate';
    object(strategy, 'rollingUpdate');
  }
  const rolling = objectField(strategy, 'rollingUpdate');
  if (strategy.type === 'RollingUpdate' && rolling) setIfAbsent(rolling, 'partition', 0);
  const retention = object(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfAbsent(retention, 'whenDeleted', 'Retain');
  setIfAbsent(retention, 'whenScaled', 'Retain');
  setIfAbsent(spec, 'replicas', 1);
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
}

function defaultDaemonSet(spec: JsonObject): void {
  const strategy = object(spec, 'updateStrategy');
  setIfAbsent(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = object(strategy, 'rollingUpdate');
    setIfAbsent(rolling, 'maxUnavailable', 1);
    setIfAbsent(rolling, 'maxSurge', 0);
  }
  setIfAbsent(spec, 'revisionHistoryLimit', 10);
}

function defaultJob(obj: JsonObject): void {
  const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
  defaultJobSpec(spec);
  const meta = isJsonObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
  const templateLabels = objectField(objectField(spec, 'template'), 'metadata')?.labels;
  if (isJsonObject(templateLabels) && !(isJsonObject(meta.labels) && Object.keys(meta.labels).length > 0)) {
    meta.labels = structuredClone(templateLabels);
  }
}

function defaultJobSpec(spec: JsonObject): void {
  if (spec.completions == null && spec.parallelism == null) spec.completions = 1;
  setIfAbsent(spec, 'parallelism', 1);
  setIfAbsent(spec, 'backoffLimit', 6);
  setIfAbsent(spec, 'completionMode', 'NonIndexed');
  setIfAbsent(spec, 'suspend', false);
  setIfAbsent(spec, 'podReplacementPolicy', isJsonObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  defaultPodTemplate(spec);
}

function defaultCronJob(spec: JsonObject): void {
  setIfAbsent(spec, 'concurrencyPolicy', 'Allow');
  setIfAbsent(spec, 'suspend', false);
  setIfAbsent(spec, 'successfulJobsHistoryLimit', 3);
  setIfAbsent(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = object(spec, 'jobTemplate');
  defaultJobSpec(object(jobTemplate, 'spec'));
}

function defaultReplicationController(obj: JsonObject): void {
  const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
  setIfAbsent(spec, 'replicas', 1);
  const labels = objectField(objectField(spec, 'template'), 'metadata')?.labels;
  if (isJsonObject(labels)) {
    if (!isJsonObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = structuredClone(labels);
    const meta = isJsonObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
    if (!isJsonObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = structuredClone(labels);
  }
  defaultPodTemplate(spec);
}

function object(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isJsonObject(v)) return v;
  const fresh: JsonObject = {};
  parent[key] = fresh;
  return fresh;
}

function setIfAbsent(obj: JsonObject, key: string, value: JsonValue): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}
