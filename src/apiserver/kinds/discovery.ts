// Discovery documents (`/api`, `/apis`, `/apis/G`, `/api/v1`, `/apis/G/V`, `/version`) built from the registry.
import type { JsonObject } from '../apimachinery/json.js';
import type { ResourceRegistry } from './resourceRegistry.js';
import type { ResourceType } from './resourceType.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * Orders versions the way Kubernetes picks a preferred version: GA before beta before alpha, higher
 * numbers first, anything not shaped like `vN[alpha|betaM]` last in alphabetical order.
 */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m: (string | undefined)[] | null = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v); // an unmatched group is undefined
    if (!m) return undefined;
    const level = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (!ra || !rb) return ra ? -1 : rb ? 1 : a.localeCompare(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
  return 0;
}

/** `GET /api`: the core group's versions. */
export function apiVersionsDoc(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `GET /apis`: every named group with its versions, preferred version first. */
export function apiGroupListDoc(registry: ResourceRegistry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...registry.groups().keys()].map((g) => groupEntry(g, registry.groups().get(g)!)),
  };
}

/** `GET /apis/G`: one group, or `undefined` when nothing is served in it. */
export function apiGroupDoc(registry: ResourceRegistry, group: string): JsonObject | undefined {
  const versions = registry.groups().get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, versions) } : undefined;
}

/**
 * `GET /api/v1` or `/apis/G/V`: the APIResourceList client-node's `KubernetesObjectApi` and kubectl use
 * to map kinds to plurals and scopes. Each `status` and `scale` subresource gets its own `X/status`, `X/scale` entry.
 */
export function apiResourceListDoc(registry: ResourceRegistry, groupVersion: string): JsonObject | undefined {
  const types = registry.resourcesOf(groupVersion);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: types.flatMap((rt) => resourceEntries(rt)),
  };
}

/** `GET /version`, claiming the minor version of the kubectl this was checked with. */
export function versionDoc(): JsonObject {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-rxkrt',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

function groupEntry(group: string, versions: string[]): JsonObject {
  const sorted = [...versions].sort(compareKubeVersions);
  const entries = sorted.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0]! };
}

function resourceEntries(rt: ResourceType): JsonObject[] {
  const main: JsonObject = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: VERBS,
  };
  if (rt.shortNames.length) main.shortNames = [...rt.shortNames];
  if (rt.categories.length) main.categories = [...rt.categories];
  const entries = [main];
  const subresource = (name: string): JsonObject => ({
    name: `${rt.plural}/${name}`,
    singularName: '',
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: ['get', 'patch', 'update'],
  });
  if (rt.statusSubresource) entries.push(subresource('status'));
  // The scale client (`kubectl scale`) reads the Scale kind's group/version from this entry.
  if (rt.scaleSubresource) entries.push({ ...subresource('scale'), group: 'autoscaling', version: 'v1', kind: 'Scale' });
  return entries;
}
