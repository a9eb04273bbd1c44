import { describe, expect, it } from '@jest/globals';
import { apiResourceListDoc, compareKubeVersions } from '../../../src/apiserver/kinds/discovery.js';
import { ResourceRegistry } from '../../../src/apiserver/kinds/resourceRegistry.js';

describe('compareKubeVersions', () => {
  it('should order GA, then beta, then alpha, then others', () => {
    const versions = ['v1alpha1', 'foo', 'v1beta1', 'v2', 'v1', 'v2beta1', 'v1beta2', 'bar'];
    expect(versions.sort(compareKubeVersions)).toEqual(['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
  });
});

describe('apiResourceListDoc', () => {
  it('should list kinds with scope, verbs and status subresources', () => {
    const doc = apiResourceListDoc(new ResourceRegistry(), 'v1') as { resources: Array<Record<string, unknown>> };
    const pods = doc.resources.find((r) => r.name === 'pods')!;
    expect(pods).toMatchObject({ singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'] });
    expect(pods.verbs).toEqual(expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']));
    expect(doc.resources.find((r) => r.name === 'pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(doc.resources.find((r) => r.name === 'nodes')).toMatchObject({ namespaced: false, kind: 'Node' });
    expect(doc.resources.find((r) => r.name === 'endpoints')).toMatchObject({ singularName: 'endpoints', kind: 'Endpoints' });
    const apps = apiResourceListDoc(new ResourceRegistry(), 'apps/v1') as { resources: Array<Record<string, unknown>> };
    expect(apps.resources.filter((r) => String(r.name).startsWith('deployments')).map((r) => r.name)).toEqual([
      'deployments',
      'deployments/status',
      'deployments/scale',
    ]);
    expect(apps.resources.find((r) => r.name === 'deployments/scale')).toEqual({
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    expect(apiResourceListDoc(new ResourceRegistry(), 'v9')).toBeUndefined();
  });
});
