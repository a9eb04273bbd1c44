import { describe, expect, it } from '@jest/globals';
import { crdResourceTypes } from '../../../src/apiserver/kinds/crdKinds.js';
import { openApiGroupVersionDoc, openApiIndexDoc } from '../../../src/apiserver/kinds/openapi.js';
import { ResourceRegistry } from '../../../src/apiserver/kinds/resourceRegistry.js';
import { widgetCrd } from '../helpers.js';

describe('openApiIndexDoc', () => {
  it('should list every group/version with a content hash that changes with its resources', () => {
    const registry = new ResourceRegistry();
    const before = openApiIndexDoc(registry).paths as Record<string, { serverRelativeURL: string }>;
    expect(Object.keys(before).sort()).toEqual([
      'api/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/coordination.k8s.io/v1',
      'apis/events.k8s.io/v1',
    ]);
    expect(before['api/v1']!.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    for (const rt of crdResourceTypes(widgetCrd())) registry.add(rt);
    const after = openApiIndexDoc(registry).paths as Record<string, { serverRelativeURL: string }>;
    expect(after['apis/example.com/v1']).toBeDefined();
    expect(after['api/v1']).toEqual(before['api/v1']);
  });
});

describe('openApiGroupVersionDoc', () => {
  it('should give each kind a PATCH operation that accepts fieldValidation', () => {
    const doc = openApiGroupVersionDoc(new ResourceRegistry(), 'v1') as { paths: Record<string, { patch: Record<string, unknown> }> };
    const cm = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!.patch;
    expect(cm['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(cm.parameters).toContainEqual({ name: 'fieldValidation', in: 'query', schema: { type: 'string' } });
    expect(doc.paths['/api/v1/nodes/{name}']).toBeDefined();
    expect(openApiGroupVersionDoc(new ResourceRegistry(), 'nope/v1')).toBeUndefined();
  });
});
