import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { resolveRoute } from '../../../src/apiserver/http/router.js';
import { ResourceRegistry } from '../../../src/apiserver/kinds/resourceRegistry.js';

const registry = new ResourceRegistry();

function brief(path: string): string {
  const r = resolveRoute(path, registry);
  if (r.type !== 'resource') return r.type;
  return [r.rt.plural, r.namespace ?? '-', r.name ?? '-', r.subresource ?? '-', r.watchPath ? 'watch' : ''].join(' ').trim();
}

describe('resolveRoute', () => {
  it.each([
    ['/', 'root'],
    ['/version', 'version'],
    ['/healthz', 'health'],
    ['/api', 'apiVersions'],
    ['/apis', 'groupList'],
    ['/apis/coordination.k8s.io', 'group'],
    ['/api/v1', 'resourceList'],
    ['/apis/coordination.k8s.io/v1', 'resourceList'],
    ['/openapi/v3', 'openApiIndex'],
    ['/openapi/v3/api/v1', 'openApiGroupVersion'],
    ['/api/v1/pods', 'pods - - -'],
    ['/api/v1/namespaces/d/pods', 'pods d - -'],
    ['/api/v1/namespaces/d/pods/p', 'pods d p -'],
    ['/api/v1/namespaces/d/pods/p/status', 'pods d p status'],
    ['/api/v1/namespaces', 'namespaces - - -'],
    ['/api/v1/namespaces/d', 'namespaces - d -'],
    ['/api/v1/nodes/n1', 'nodes - n1 -'],
    ['/api/v1/watch/namespaces/d/pods', 'pods d - - watch'],
    ['/apis/coordination.k8s.io/v1/namespaces/d/leases/l', 'leases d l -'],
    ['/apis/apps/v1/namespaces/d/deployments/x/scale', 'deployments d x scale'],
    ['/api/v1/namespaces/d/replicationcontrollers/r/scale', 'replicationcontrollers d r scale'],
  ])('should resolve %s', (path, expected) => {
    expect(brief(path)).toBe(expected);
  });

  it.each([
    '/api/v2',
    '/apis/nope.io/v1',
    '/api/v1/widgets',
    '/api/v1/namespaces/d/configmaps/c/status',
    '/api/v1/namespaces/d/pods/p/log',
    '/api/v1/namespaces/d/pods/p/scale',
    '/apis/apps/v1/namespaces/d/daemonsets/x/scale',
    '/api/v1/namespaces/d/nodes/n',
    '/openapi/v2/x',
    '/metrics',
  ])('should answer 404 for %s', (path) => {
    expect(() => resolveRoute(path, registry)).toThrow(StatusError);
  });
});
