import { describe, it, expect } from '@jest/globals';
import { UsageError } from '../../src/index.js';
import { collectionPath, pluralOf } from '../../src/kube/index.js';

describe('pluralOf', () => {
  it('should lower-case the kind and add s', () => {
    expect(pluralOf('Pod')).toBe('pods');
    expect(pluralOf('ConfigMap')).toBe('configmaps');
    expect(pluralOf('CustomResourceDefinition')).toBe('customresourcedefinitions');
  });

  it('should keep Endpoints as it is, whatever its case', () => {
    expect(pluralOf('Endpoints')).toBe('endpoints');
    expect(pluralOf('endpoints')).toBe('endpoints');
    expect(pluralOf('EndpointSlice')).toBe('endpointslices');
  });

  it('should turn a consonant + y into ies', () => {
    expect(pluralOf('NetworkPolicy')).toBe('networkpolicies');
    expect(pluralOf('AccessPolicy')).toBe('accesspolicies');
    expect(pluralOf('Proxy')).toBe('proxies');
  });

  it('should add s after a vowel + y, as English (and every CRD named so) does', () => {
    // Deliberately narrower than a bare "y → ies": Gateway's resource is `gateways` on every cluster.
    expect(pluralOf('Gateway')).toBe('gateways');
    expect(pluralOf('Key')).toBe('keys');
  });

  it('should add es after s, x, ch and sh', () => {
    expect(pluralOf('Ingress')).toBe('ingresses');
    expect(pluralOf('Status')).toBe('statuses');
    expect(pluralOf('Box')).toBe('boxes');
    expect(pluralOf('Match')).toBe('matches');
    expect(pluralOf('Mesh')).toBe('meshes');
  });
});

describe('collectionPath', () => {
  it('should put core kinds under /api/v1, all namespaces or one', () => {
    expect(collectionPath({ apiVersion: 'v1', kind: 'ConfigMap' })).toBe('/api/v1/configmaps');
    expect(collectionPath({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' })).toBe('/api/v1/namespaces/default/configmaps');
    expect(collectionPath({ apiVersion: 'v1', kind: 'Endpoints', namespace: 'ns' })).toBe('/api/v1/namespaces/ns/endpoints');
  });

  it('should put group kinds under /apis/group/version, all namespaces or one', () => {
    expect(collectionPath({ apiVersion: 'example.rxkrt.dev/v1', kind: 'AccessPolicy' })).toBe('/apis/example.rxkrt.dev/v1/accesspolicies');
    expect(collectionPath({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'kube-system' })).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
    );
  });

  it('should let an explicit plural override the default', () => {
    expect(collectionPath({ apiVersion: 'x.io/v1alpha1', kind: 'Person', plural: 'people' })).toBe('/apis/x.io/v1alpha1/people');
  });

  it('should ignore selectors (they are query parameters) and an empty namespace', () => {
    expect(collectionPath({ apiVersion: 'v1', kind: 'Pod', namespace: '', labelSelector: 'a=b', fieldSelector: 'metadata.name=x' })).toBe(
      '/api/v1/pods',
    );
  });

  it('should encode a namespace that needs it', () => {
    expect(collectionPath({ apiVersion: 'v1', kind: 'Pod', namespace: 'a b' })).toBe('/api/v1/namespaces/a%20b/pods');
  });

  it('should throw a UsageError for a missing or malformed apiVersion or kind', () => {
    expect(() => collectionPath({ apiVersion: '', kind: 'Pod' })).toThrow(UsageError);
    expect(() => collectionPath({ apiVersion: 'v1', kind: '' })).toThrow(UsageError);
    expect(() => collectionPath({ apiVersion: 'a/b/c', kind: 'Pod' })).toThrow(/malformed apiVersion/);
    expect(() => collectionPath({ apiVersion: '/v1', kind: 'Pod' })).toThrow(UsageError);
    expect(() => collectionPath(undefined as never)).toThrow(UsageError);
  });
});
