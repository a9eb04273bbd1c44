import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError } from '../helpers.js';

// The per-kind rules beyond defaults; the defaults themselves are in podDefaults, serviceDefaults and workloadDefaults.
describe('builtinHooks', () => {
  let server: ApiServer;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    [batch, core] = [server.kubeConfig().makeApiClient(BatchV1Api), server.kubeConfig().makeApiClient(CoreV1Api)];
  });
  afterAll(() => server.close());

  it('should select a Job’s pods by its uid unless the selector is manual', async () => {
    const job = await batch.createNamespacedJob({
      namespace: 'default',
      body: { metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } } },
    });
    const uid = job.metadata!.uid!;
    expect(job.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
    expect(job.spec!.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(job.spec!.template.metadata!.labels).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'j',
      'controller-uid': uid,
      'job-name': 'j',
    });
    const manual = await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name: 'm' },
        spec: {
          manualSelector: true,
          selector: { matchLabels: { mine: 'y' } },
          template: { metadata: { labels: { mine: 'y' } }, spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } },
        },
      },
    });
    expect(manual.spec!.selector).toEqual({ matchLabels: { mine: 'y' } });
    expect(manual.spec!.template.metadata!.labels).toEqual({ mine: 'y' });
  });

  it('should refuse a CronJob name longer than 52 characters', async () => {
    const name = 'c'.repeat(53);
    const body = { metadata: { name }, spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: { containers: [] } } } } } };
    const status = await expectApiError(batch.createNamespacedCronJob({ namespace: 'default', body }), 422, 'Invalid');
    expect(status.message).toBe(
      `CronJob.batch "${name}" is invalid: metadata.name: Invalid value: "${name}": must be no more than 52 characters`,
    );
    const fits = await batch.createNamespacedCronJob({ namespace: 'default', body: { ...body, metadata: { name: name.slice(1) } } });
    expect(fits.metadata!.name).toHaveLength(52);
  });

  it('should give a Secret the Opaque type and a claim the Pending phase and Filesystem mode', async () => {
    const secret = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's' }, stringData: { a: 'b' } } });
    expect(secret.type).toBe('Opaque');
    expect(secret.data).toEqual({ a: Buffer.from('b').toString('base64') });
    const typed = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 't' }, type: 'kubernetes.io/tls' } });
    expect(typed.type).toBe('kubernetes.io/tls');
    const claim = await core.createNamespacedPersistentVolumeClaim({
      namespace: 'default',
      body: { metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] }, status: { phase: 'Bound' } },
    });
    expect(claim.status).toEqual({ phase: 'Pending' });
    expect(claim.spec!.volumeMode).toBe('Filesystem');
  });
});
