import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, BatchV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { JsonObject } from '../../../src/apiserver/apimachinery/json.js';
import { WORKLOAD_DEFAULTS } from '../../../src/apiserver/hooks/workloadDefaults.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';

const template = (): JsonObject => ({ metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } });
const TEMPLATE_DEFAULTS = {
  restartPolicy: 'Always',
  dnsPolicy: 'ClusterFirst',
  schedulerName: 'default-scheduler',
  terminationGracePeriodSeconds: 30,
  securityContext: {},
};

function defaulted(storageKey: string, obj: JsonObject): JsonObject {
  WORKLOAD_DEFAULTS.get(storageKey)!(obj);
  return obj;
}

describe('WORKLOAD_DEFAULTS', () => {
  it.each([
    [
      'apps/deployments',
      {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
    ],
    ['apps/replicasets', { replicas: 1 }],
    [
      'apps/statefulsets',
      {
        replicas: 1,
        podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      },
    ],
    [
      'apps/daemonsets',
      { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 },
    ],
    [
      'batch/jobs',
      {
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: 'NonIndexed',
        suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed',
      },
    ],
    ['/replicationcontrollers', { replicas: 1, selector: { app: 'w' } }],
  ])('should default %s and its pod template', (key, expected) => {
    const obj = defaulted(key, { metadata: { name: 'w' }, spec: { template: template() } });
    const spec = obj.spec as JsonObject;
    expect(spec).toMatchObject(expected);
    expect((spec.template as JsonObject).spec).toMatchObject(TEMPLATE_DEFAULTS);
    expect(((spec.template as JsonObject).spec as { containers: JsonObject[] }).containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
    });
  });

  it('should default a CronJob and the Job and pod template inside it', () => {
    const obj = defaulted('batch/cronjobs', {
      metadata: { name: 'c' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template() } } },
    });
    const spec = obj.spec as { jobTemplate: { spec: JsonObject } } & JsonObject;
    expect(spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(spec.jobTemplate.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed' });
    expect((spec.jobTemplate.spec.template as JsonObject).spec).toMatchObject(TEMPLATE_DEFAULTS);
  });

  it('should keep what the object sets, and default only what the rules tie together', () => {
    const deploy = defaulted('apps/deployments', { spec: { replicas: 0, strategy: { type: 'Recreate' } } });
    expect(deploy.spec).toMatchObject({ replicas: 0, strategy: { type: 'Recreate' } });
    expect((deploy.spec as JsonObject & { strategy: JsonObject }).strategy.rollingUpdate).toBeUndefined();
    // Parallelism alone: completions stay unset (a work queue), as on a real server.
    const job = defaulted('batch/jobs', { spec: { parallelism: 3, podFailurePolicy: { rules: [] } } });
    expect(job.spec).toMatchObject({ parallelism: 3, podReplacementPolicy: 'Failed' });
    expect((job.spec as JsonObject).completions).toBeUndefined();
    // A StatefulSet that names its strategy type gets no rollingUpdate block added.
    const sts = defaulted('apps/statefulsets', { spec: { updateStrategy: { type: 'OnDelete' } } });
    expect(sts.spec).toMatchObject({ updateStrategy: { type: 'OnDelete' } });
    // A Job and an RC take their labels from the template only when they have none.
    expect(defaulted('batch/jobs', { metadata: {}, spec: { template: template() } }).metadata).toEqual({ labels: { app: 'w' } });
    expect(defaulted('/replicationcontrollers', { metadata: { labels: { own: 'y' } }, spec: { template: template() } }).metadata).toEqual({
      labels: { own: 'y' },
    });
  });
});

describe('workload defaults through the server', () => {
  let server: ApiServer;
  let apps: AppsV1Api;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    const kc = server.kubeConfig();
    [apps, batch, core] = [kc.makeApiClient(AppsV1Api), kc.makeApiClient(BatchV1Api), kc.makeApiClient(CoreV1Api)];
  });
  afterAll(() => server.close());

  it('should answer created workloads with their defaults', async () => {
    const selector = { matchLabels: { app: 'w' } };
    const d = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'd' }, spec: { selector, template: template() } },
    });
    expect(d.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate' },
    });
    expect(d.spec!.strategy!.rollingUpdate).toEqual({ maxSurge: '25%', maxUnavailable: '25%' });
    expect(d.spec!.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    const s = await apps.createNamespacedStatefulSet({
      namespace: 'default',
      body: { metadata: { name: 's' }, spec: { selector, serviceName: 's', template: template() } },
    });
    expect(s.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    });
    const ds = await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: { metadata: { name: 'ds' }, spec: { selector, template: template() } },
    });
    expect(ds.spec!.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: { metadata: { name: 'rs' }, spec: { selector, template: template() } },
    });
    expect(rs.spec!.replicas).toBe(1);
    const cj = await batch.createNamespacedCronJob({
      namespace: 'default',
      body: {
        metadata: { name: 'cj' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } } },
        },
      },
    });
    expect(cj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(cj.spec!.jobTemplate.spec!.template.spec).toMatchObject({ restartPolicy: 'Never', dnsPolicy: 'ClusterFirst' });
    const rc = await core.createNamespacedReplicationController({
      namespace: 'default',
      body: { metadata: { name: 'rc' }, spec: { template: template() } },
    });
    expect(rc.spec).toMatchObject({ replicas: 1, selector: { app: 'w' } });
    expect(rc.metadata!.labels).toEqual({ app: 'w' });
  });

  it('should bump generation on spec changes only, and a Deployment’s on annotation changes', async () => {
    const body = { metadata: { name: 'gen' }, spec: { selector: { matchLabels: { app: 'w' } }, template: template() } };
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body });
    expect(created.metadata!.generation).toBe(1);
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const labelled = await apps.patchNamespacedDeployment(
      { name: 'gen', namespace: 'default', body: { metadata: { labels: { x: 'y' } } } },
      merge,
    );
    expect(labelled.metadata!.generation).toBe(1);
    const noted = await apps.patchNamespacedDeployment(
      { name: 'gen', namespace: 'default', body: { metadata: { annotations: { n: '1' } } } },
      merge,
    );
    expect(noted.metadata!.generation).toBe(2);
    const status = await apps.patchNamespacedDeploymentStatus(
      { name: 'gen', namespace: 'default', body: { status: { replicas: 1 } } },
      merge,
    );
    expect(status.metadata!.generation).toBe(2);
    // The body of the create again, defaults left out: the spec does not change.
    const same = await apps.replaceNamespacedDeployment({
      name: 'gen',
      namespace: 'default',
      body: { ...body, metadata: { name: 'gen', labels: { x: 'y' }, annotations: { n: '1' } } },
    });
    expect(same.metadata!.generation).toBe(2);
    const rescaled = await apps.patchNamespacedDeployment({ name: 'gen', namespace: 'default', body: { spec: { replicas: 4 } } }, merge);
    expect(rescaled.metadata!.generation).toBe(3);
  });
});
