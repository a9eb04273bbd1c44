import { describe, expect, it } from '@jest/globals';
import { expectApiError, request, serverForSuite } from '../helpers.js';

describe('the embedded API server: create', () => {
  const suite = serverForSuite();

  it('should give a re-created object a new uid', async () => {
    const first = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'again' } } });
    await suite.core.deleteNamespacedConfigMap({ name: 'again', namespace: 'default' });
    const second = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'again' } } });
    expect(second.metadata!.uid).not.toBe(first.metadata!.uid);
  });

  it('should answer 409 AlreadyExists to creating a taken name', async () => {
    await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'taken' } } });
    const status = await expectApiError(
      suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'taken' } } }),
      409,
      'AlreadyExists',
    );
    expect(status.message).toBe('configmaps "taken" already exists');
  });

  it('should answer 422 Invalid for a missing name, a bad name or a wrong kind', async () => {
    const missing = await expectApiError(
      suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: {} } }),
      422,
      'Invalid',
    );
    expect(missing.details!.causes![0]!.field).toBe('metadata.name');
    await expectApiError(
      suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Bad_Name' } } }),
      422,
      'Invalid',
    );
    const res = await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } },
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
    const wrongVersion = await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } },
    });
    expect(wrongVersion.status).toBe(422);
  });

  it('should generate names from generateName', async () => {
    const cm = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'gen-' } } });
    expect(cm.metadata!.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});
