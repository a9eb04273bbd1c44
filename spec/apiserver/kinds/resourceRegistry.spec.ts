import { describe, expect, it } from '@jest/globals';
import { crdResourceTypes } from '../../../src/apiserver/kinds/crdKinds.js';
import { ResourceRegistry } from '../../../src/apiserver/kinds/resourceRegistry.js';
import { widgetCrd } from '../helpers.js';

describe('ResourceRegistry', () => {
  it('should serve the built-in kinds', () => {
    const r = new ResourceRegistry();
    expect(r.resourcesOf('v1').map((rt) => rt.plural)).toEqual([
      'namespaces',
      'pods',
      'services',
      'configmaps',
      'secrets',
      'nodes',
      'endpoints',
      'events',
      'serviceaccounts',
      'resourcequotas',
      'limitranges',
      'persistentvolumeclaims',
      'replicationcontrollers',
    ]);
    expect(r.byKind('coordination.k8s.io/v1', 'Lease')).toMatchObject({ plural: 'leases', namespaced: true, listKind: 'LeaseList' });
    expect(r.byPlural('apiextensions.k8s.io/v1', 'customresourcedefinitions')?.namespaced).toBe(false);
    expect(r.byPlural('v1', 'pods')?.statusSubresource).toBe(true);
    expect(r.byPlural('v1', 'configmaps')?.statusSubresource).toBe(false);
  });

  it('should add and remove every version of a CRD', () => {
    const r = new ResourceRegistry();
    for (const rt of crdResourceTypes(widgetCrd({ versions: ['v1', 'v1beta1'] }))) r.add(rt);
    expect(r.byPlural('example.com/v1', 'widgets')).toMatchObject({
      kind: 'Widget',
      custom: true,
      statusSubresource: true,
      storageKey: 'example.com/widgets',
    });
    expect(r.versionsOf('example.com/widgets').map((rt) => rt.version)).toEqual(['v1', 'v1beta1']);
    expect(r.groups().get('example.com')).toEqual(['v1', 'v1beta1']);
    r.removeStorage('example.com/widgets');
    expect(r.byPlural('example.com/v1', 'widgets')).toBeUndefined();
    expect(r.groups().has('example.com')).toBe(false);
  });
});

describe('crdResourceTypes', () => {
  it('should skip versions that are not served and read names and scope', () => {
    const crd = widgetCrd({ versions: ['v1', 'v2'], scope: 'Cluster', status: false });
    (crd.spec.versions[1] as { served: boolean }).served = false;
    const types = crdResourceTypes(crd);
    expect(types.map((t) => t.version)).toEqual(['v1']);
    expect(types[0]).toMatchObject({
      namespaced: false,
      statusSubresource: false,
      singular: 'widget',
      shortNames: ['wd'],
      listKind: 'WidgetList',
    });
  });
});
