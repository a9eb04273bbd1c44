import { describe, expect, it } from '@jest/globals';
import { PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { expectApiError, serverForSuite } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('the embedded API server: PUT and other updates', () => {
  const suite = serverForSuite();

  it('should answer 409 Conflict to a PUT with a stale resourceVersion and accept an empty one', async () => {
    const v1 = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'occ' }, data: { n: '1' } } });
    await suite.core.replaceNamespacedConfigMap({ name: 'occ', namespace: 'default', body: { ...v1, data: { n: '2' } } });
    const status = await expectApiError(
      suite.core.replaceNamespacedConfigMap({ name: 'occ', namespace: 'default', body: { ...v1, data: { n: '3' } } }),
      409,
      'Conflict',
    );
    expect(status.message).toContain('the object has been modified');
    const unconditional = await suite.core.replaceNamespacedConfigMap({
      name: 'occ',
      namespace: 'default',
      body: { metadata: { name: 'occ', resourceVersion: '' }, data: { n: '4' } },
    });
    expect(unconditional.data).toEqual({ n: '4' });
    // A merge patch carrying a stale resourceVersion is a conditional write too.
    await expectApiError(
      suite.core.patchNamespacedConfigMap(
        { name: 'occ', namespace: 'default', body: { metadata: { resourceVersion: v1.metadata!.resourceVersion }, data: { n: '5' } } },
        merge,
      ),
      409,
      'Conflict',
    );
  });

  it('should bump generation on spec changes only', async () => {
    const svc = await suite.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'gen' }, spec: { ports: [{ port: 80 }] } },
    });
    const labelled = await suite.core.patchNamespacedService(
      { name: 'gen', namespace: 'default', body: { metadata: { labels: { x: 'y' } } } },
      merge,
    );
    expect(labelled.metadata!.generation).toBe(1);
    const respec = await suite.core.patchNamespacedService(
      { name: 'gen', namespace: 'default', body: { spec: { ports: [{ port: 81 }] } } },
      merge,
    );
    expect(respec.metadata!.generation).toBe(2);
    expect(svc.metadata!.generation).toBe(1);
  });

  it('should not write (or bump resourceVersion) when an update changes nothing', async () => {
    const cm = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'noop' }, data: { a: 'b' } } });
    const before = suite.server.resourceVersion();
    const same = await suite.core.patchNamespacedConfigMap({ name: 'noop', namespace: 'default', body: { data: { a: 'b' } } }, merge);
    expect(same.metadata!.resourceVersion).toBe(cm.metadata!.resourceVersion);
    expect(suite.server.resourceVersion()).toBe(before);
  });

  it('should refuse a PUT or DELETE that contradicts the object or its URL, and answer 404 for a missing one', async () => {
    const created = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'strict' } } });
    const body = (meta: Record<string, unknown>): V1ConfigMap => ({ metadata: { name: 'strict', namespace: 'default', ...meta } });
    await expectApiError(
      suite.core.replaceNamespacedConfigMap({ name: 'nobody', namespace: 'default', body: body({ name: 'nobody' }) }),
      404,
      'NotFound',
    );
    await expectApiError(
      suite.core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ name: 'other' }) }),
      400,
      'BadRequest',
    );
    await expectApiError(
      suite.core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ namespace: 'kube-system' }) }),
      400,
      'BadRequest',
    );
    await expectApiError(
      suite.core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ uid: 'not-its-uid' }) }),
      409,
      'Conflict',
    );
    await expectApiError(suite.core.deleteNamespacedConfigMap({ name: 'nobody', namespace: 'default' }), 404, 'NotFound');
    await expectApiError(
      suite.core.deleteNamespacedConfigMap({ name: 'strict', namespace: 'default', body: { preconditions: { uid: 'not-its-uid' } } }),
      409,
      'Conflict',
    );
    // Dry runs answer as the write would, and store nothing.
    const before = suite.server.resourceVersion();
    const dryPut = await suite.core.replaceNamespacedConfigMap({
      name: 'strict',
      namespace: 'default',
      body: { ...body({}), data: { x: '1' } },
      dryRun: 'All',
    });
    expect(dryPut.data).toEqual({ x: '1' });
    await suite.core.deleteNamespacedConfigMap({ name: 'strict', namespace: 'default', dryRun: 'All' });
    expect(suite.server.resourceVersion()).toBe(before);
    expect((await suite.core.readNamespacedConfigMap({ name: 'strict', namespace: 'default' })).metadata!.uid).toBe(created.metadata!.uid);
  });
});
