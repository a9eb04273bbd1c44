import { describe, expect, it } from '@jest/globals';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expectApiError, request, serverForSuite } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('the embedded API server: DELETE', () => {
  const suite = serverForSuite();

  it('should return the deleted object from DELETE with a new resourceVersion', async () => {
    const created = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'del' } } });
    const res = await request<{ metadata: { name: string; resourceVersion: string } }>(
      suite.server.url,
      'DELETE',
      '/api/v1/namespaces/default/configmaps/del',
    );
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe('del');
    expect(Number(res.json.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata!.resourceVersion));
    expect(res.json.metadata.resourceVersion).toBe(suite.server.resourceVersion());
  });

  it('should delete the contents of a deleted namespace', async () => {
    await suite.core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await suite.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'c' } } });
    await suite.core.createNamespacedPod({
      namespace: 'doomed',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    });
    await suite.core.deleteNamespace({ name: 'doomed' });
    await expectApiError(suite.core.readNamespacedConfigMap({ name: 'c', namespace: 'doomed' }), 404);
    expect((await suite.core.listPodForAllNamespaces()).items.filter((p) => p.metadata!.namespace === 'doomed')).toEqual([]);
    await expectApiError(suite.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'c' } } }), 404);
  });

  it('should honour finalizers: DELETE marks, removing the last finalizer deletes', async () => {
    await suite.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } },
    });
    await suite.core.deleteNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    const marked = await suite.core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    expect(marked.metadata!.deletionTimestamp).toBeInstanceOf(Date);
    await expectApiError(
      suite.core.patchNamespacedConfigMap(
        { name: 'fin', namespace: 'default', body: { metadata: { finalizers: ['example.com/hold', 'more'] } } },
        merge,
      ),
      422,
    );
    await suite.core.patchNamespacedConfigMap({ name: 'fin', namespace: 'default', body: { metadata: { finalizers: null } } }, merge);
    await expectApiError(suite.core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' }), 404);
  });

  it('should check delete preconditions', async () => {
    await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'pre' } } });
    await expectApiError(
      suite.core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'default', body: { preconditions: { resourceVersion: '1' } } }),
      409,
      'Conflict',
    );
    await suite.core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'default' });
  });
});
