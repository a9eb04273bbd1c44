import { describe, expect, it } from '@jest/globals';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { patchSchemaFor } from '../../../src/apiserver/patch/patchStrategies.js';
import { request, type StatusBody, serverForSuite } from '../helpers.js';

describe('patchSchemaFor', () => {
  it('should key the table by group and kind, with object metadata for every kind', () => {
    expect(patchSchemaFor('apps', 'Deployment')('spec.template.spec.containers.ports')).toEqual({
      strategies: ['merge'],
      mergeKey: 'containerPort',
    });
    expect(patchSchemaFor('', 'Pod')('spec.volumes')).toEqual({ strategies: ['merge', 'retainKeys'], mergeKey: 'name' });
    expect(patchSchemaFor('', 'Pod')('spec.tolerations')).toBeUndefined();
    expect(patchSchemaFor('example.com', 'Widget')('metadata.finalizers')).toEqual({ strategies: ['merge'], mergeKey: undefined });
    // A Deployment's key does not leak into the core group's kind of the same name.
    expect(patchSchemaFor('', 'Deployment')('spec.template.spec.containers')).toBeUndefined();
  });
});

describe('strategic merge patch through a running suite.server', () => {
  const suite = serverForSuite();

  const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

  it('should add a Service port by merging on port, as client-node sends it', async () => {
    await suite.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    });
    const patched = await suite.core.patchNamespacedService(
      { name: 'web', namespace: 'default', body: { spec: { ports: [{ name: 'https', port: 443 }] } } },
      strategic,
    );
    expect(patched.spec!.ports!.map((p) => [p.name, p.port])).toEqual([
      ['https', 443],
      ['http', 80],
    ]);
  });

  it('should merge Pod containers by name and delete one with $patch', async () => {
    await suite.core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'p' },
        spec: {
          containers: [
            { name: 'a', image: 'x' },
            { name: 'b', image: 'y' },
          ],
        },
      },
    });
    const patched = await suite.core.patchNamespacedPod(
      {
        name: 'p',
        namespace: 'default',
        body: {
          spec: {
            containers: [
              { name: 'a', image: 'z' },
              { name: 'b', $patch: 'delete' },
            ],
          },
        },
      },
      strategic,
    );
    expect(patched.spec!.containers.map((c) => `${c.name}=${c.image}`)).toEqual(['a=z']);
    const missingKey = await request<StatusBody>(suite.server.url, 'PATCH', '/api/v1/namespaces/default/pods/p', {
      body: { spec: { containers: [{ image: 'q' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect([missingKey.status, missingKey.json.message]).toEqual([
      500,
      expect.stringContaining('does not contain declared merge key: name'),
    ]);
  });
  // Custom resources answer 415 to strategic merge, as on a real server: spec/apiserver/hooks/crd.spec.ts.
});
