// Maps a URL path to what it names: a discovery document, a resource collection, an object or a subresource.
import { unknownPath } from '../apimachinery/statusError.js';
import type { ResourceRegistry } from '../kinds/resourceRegistry.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { pathSegments } from './requestTarget.js';

/** What a request path names. */
export type Route =
  | { type: 'root' }
  | { type: 'version' }
  | { type: 'health' }
  | { type: 'apiVersions' }
  | { type: 'groupList' }
  | { type: 'group'; group: string }
  | { type: 'resourceList'; groupVersion: string }
  | { type: 'openApiIndex' }
  | { type: 'openApiV2' }
  | { type: 'openApiGroupVersion'; groupVersion: string }
  | {
      type: 'resource';
      rt: ResourceType;
      /** The URL's namespace (namespaced kinds only; absent = all namespaces). */
      namespace?: string;
      name?: string;
      subresource?: string;
      /** The deprecated `/watch/` path form was used. */
      watchPath: boolean;
    };

/**
 * Resolves a path against the current registry, so a CRD created a moment ago already routes.
 * Paths: `/api/v1[/namespaces/{ns}]/{plural}[/{name}[/{sub}]]`, the same under `/apis/{group}/{version}`,
 * optionally with `/watch` after the version; plus `/api`, `/apis`, `/apis/{g}`, `/version`, `/openapi/v2`, `/openapi/v3[/…]`
 * and health checks.
 *
 * @throws StatusError `404` for a path the server does not serve; `400` for a malformed one (see `pathSegments`).
 */
export function resolveRoute(pathname: string | readonly string[], registry: ResourceRegistry): Route {
  const segs = typeof pathname === 'string' ? pathSegments(pathname) : pathname;
  if (segs.length === 0) return { type: 'root' };
  if (segs.length === 1 && segs[0] === 'version') return { type: 'version' };
  if (['healthz', 'livez', 'readyz'].includes(segs[0]!)) return { type: 'health' };
  if (segs.length === 2 && segs[0] === 'openapi' && segs[1] === 'v2') return { type: 'openApiV2' };
  if (segs[0] === 'openapi' && segs[1] === 'v3') {
    if (segs.length === 2) return { type: 'openApiIndex' };
    if (segs[2] === 'api' && segs.length === 4) return { type: 'openApiGroupVersion', groupVersion: segs[3]! };
    if (segs[2] === 'apis' && segs.length === 5) return { type: 'openApiGroupVersion', groupVersion: `${segs[3]}/${segs[4]}` };
  }
  let group: string;
  let rest: string[];
  if (segs[0] === 'api') {
    if (segs.length === 1) return { type: 'apiVersions' };
    if (segs[1] !== 'v1') throw unknownPath();
    group = '';
    rest = segs.slice(1);
  } else if (segs[0] === 'apis') {
    if (segs.length === 1) return { type: 'groupList' };
    if (segs.length === 2) return { type: 'group', group: segs[1]! };
    group = segs[1]!;
    rest = segs.slice(2);
  } else {
    throw unknownPath();
  }
  const version = rest[0]!;
  const groupVersion = group ? `${group}/${version}` : version;
  let parts = rest.slice(1);
  if (parts.length === 0) {
    if (registry.resourcesOf(groupVersion).length === 0) throw unknownPath();
    return { type: 'resourceList', groupVersion };
  }
  const watchPath = parts[0] === 'watch';
  if (watchPath) parts = parts.slice(1);

  // `/namespaces/{ns}/{plural}...` is a namespaced resource only when {plural} is one; otherwise it is
  // the `namespaces` resource itself (`/api/v1/namespaces/{name}[/status]`).
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    const rt = registry.byPlural(groupVersion, parts[2]!);
    if (rt?.namespaced) return resourceRoute(rt, parts[1], parts.slice(3), watchPath);
  }
  const rt = registry.byPlural(groupVersion, parts[0]!);
  if (!rt) throw unknownPath();
  return resourceRoute(rt, undefined, parts.slice(1), watchPath);
}

function resourceRoute(rt: ResourceType, namespace: string | undefined, tail: string[], watchPath: boolean): Route {
  if (tail.length > 2) throw unknownPath();
  const [name, subresource] = tail as [string?, string?];
  const served = (subresource === 'status' && rt.statusSubresource) || (subresource === 'scale' && rt.scaleSubresource);
  if (subresource !== undefined && !served) throw unknownPath();
  return { type: 'resource', rt, namespace, name, subresource, watchPath };
}
