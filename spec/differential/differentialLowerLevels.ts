// Levels 1 and 2 of the differential graph: collections derived straight from the sources (and from one
// another), each registered with the plain recomputation it must match.
import {
  fetch,
  fetchOne,
  filterGeneric,
  filterIndex,
  filterKeys,
  filterLabel,
  filterObjectName,
  filterSelects,
  filterSelectsNonEmpty,
  isSubset,
  newCollection,
  newIndex,
  newManyCollection,
  newNamespaceIndex,
  newSingleton,
  partialFetch,
  type FetchFilter,
  type HandlerContext,
} from '../../src/index.js';
import { key, sorted, type GraphBuilder, type Labels, type Pod, type Snapshot, type Svc } from './differentialModel.js';

export interface SimplePod {
  metadata: { name: string; namespace: string };
  labels: Labels;
  ip: string;
}

export const toSimple = (p: Pod): SimplePod | undefined =>
  p.status
    ? { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, labels: p.metadata.labels, ip: p.status.podIP }
    : undefined;

export interface SvcInfo {
  metadata: { name: string; namespace: string };
  cmV: string | null;
  nsPods: number;
}

export interface Endpoint {
  metadata: { name: string; namespace: string };
  svc: string;
  pod: string;
  ip: string;
}

export interface PodSvcs {
  metadata: { name: string; namespace: string };
  nonEmpty: string[];
  any: number;
}

/** Adds levels 1 and 2 to the graph; returns the collections the levels above read. */
export function addLowerLevels({ pods, svcs, cms, mode, add, expectedOf }: GraphBuilder) {
  const podsByIP = newIndex(pods, 'ip', (p) => (p.status ? [p.status.podIP] : []));
  const podsByNs = newNamespaceIndex(pods);
  // Level 1 ------------------------------------------------------------------------------------------------
  const simplePods = add(
    'simplePods',
    newCollection(pods, (_ctx, p) => toSimple(p), { name: 'simplePods' }),
    (s) => s.pods.map(toSimple).filter((x): x is SimplePod => x !== undefined),
  );

  // filterObjectName + an index fetch through Index.fetch (namespace index).
  const svcInfo = add(
    'svcInfo',
    newCollection(
      svcs,
      (ctx, svc): SvcInfo => ({
        metadata: svc.metadata,
        cmV:
          fetchOne(ctx, cms, filterObjectName({ name: `c${svc.metadata.name.slice(1)}`, namespace: svc.metadata.namespace }))?.data.v ??
          null,
        nsPods: podsByNs.fetch(ctx, svc.metadata.namespace).length,
      }),
      { name: 'svcInfo' },
    ),
    (s) =>
      s.svcs.map((svc) => ({
        metadata: svc.metadata,
        cmV: s.cms.find((c) => key(c) === `${svc.metadata.namespace}/c${svc.metadata.name.slice(1)}`)?.data.v ?? null,
        nsPods: s.pods.filter((p) => p.metadata.namespace === svc.metadata.namespace).length,
      })),
  );

  interface CmMatch {
    metadata: { name: string; namespace: string };
    byLabel: string[];
    byKeys: string[];
  }
  // filterLabel (an empty label set matches every pod) + filterKeys.
  add(
    'cmMatches',
    newCollection(
      cms,
      (ctx, cm): CmMatch => ({
        metadata: { name: cm.metadata.name, namespace: cm.metadata.namespace },
        byLabel: sorted(fetch(ctx, pods, filterLabel(cm.metadata.labels)).map(key)),
        byKeys: sorted(fetch(ctx, pods, filterKeys(`${cm.metadata.namespace}/${cm.data.pod}`, `${cm.metadata.namespace}/p0`)).map(key)),
      }),
      { name: 'cmMatches' },
    ),
    (s) =>
      s.cms.map((cm) => ({
        metadata: { name: cm.metadata.name, namespace: cm.metadata.namespace },
        byLabel: sorted(s.pods.filter((p) => isSubset(cm.metadata.labels, p.metadata.labels)).map(key)),
        byKeys: sorted(
          s.pods.filter((p) => key(p) === `${cm.metadata.namespace}/${cm.data.pod}` || key(p) === `${cm.metadata.namespace}/p0`).map(key),
        ),
      })),
  );

  // Level 2 ------------------------------------------------------------------------------------------------
  const endpointsOf = (svc: Svc, candidates: SimplePod[]): Endpoint[] =>
    candidates.map((p) => ({
      metadata: { name: `${svc.metadata.name}.${p.metadata.name}`, namespace: svc.metadata.namespace },
      svc: svc.metadata.name,
      pod: p.metadata.name,
      ip: p.ip,
    }));
  // filterLabel on a derived collection + filterGeneric.
  const endpoints = add(
    'endpoints',
    newManyCollection(
      svcs,
      (ctx, svc) =>
        endpointsOf(
          svc,
          fetch(
            ctx,
            simplePods,
            filterLabel(svc.spec.selector),
            filterGeneric((p: SimplePod) => p.metadata.namespace === svc.metadata.namespace),
          ),
        ),
      { name: 'endpoints' },
    ),
    (s) =>
      s.svcs.flatMap((svc) =>
        endpointsOf(
          svc,
          s.pods
            .map(toSimple)
            .filter(
              (p): p is SimplePod =>
                p !== undefined && p.metadata.namespace === svc.metadata.namespace && isSubset(svc.spec.selector, p.labels),
            ),
        ),
      ),
  );

  const selects = (sel: Labels, labels: Labels): boolean => isSubset(sel, labels);
  // filterSelectsNonEmpty + filterSelects, through `fetchSvcs`, on the services of the pod's namespace.
  const podServicesVia = (name: string, fetchSvcs: (ctx: HandlerContext, ...filters: FetchFilter<Svc>[]) => Svc[]) =>
    newCollection(
      simplePods,
      (ctx, p): PodSvcs => {
        const inNs = filterGeneric((svc: Svc) => svc.metadata.namespace === p.metadata.namespace);
        return {
          metadata: p.metadata,
          nonEmpty: sorted(fetchSvcs(ctx, filterSelectsNonEmpty(p.labels), inNs).map((svc) => svc.metadata.name)),
          any: fetchSvcs(ctx, filterSelects(p.labels), inNs).length,
        };
      },
      { name },
    );
  const expectedPodServices = (s: Snapshot, visible: (svc: Svc) => boolean): PodSvcs[] =>
    s.pods
      .map(toSimple)
      .filter((p): p is SimplePod => p !== undefined)
      .map((p) => {
        const inNs = s.svcs.filter((svc) => svc.metadata.namespace === p.metadata.namespace && visible(svc));
        return {
          metadata: p.metadata,
          nonEmpty: sorted(
            inNs
              .filter((svc) => Object.keys(svc.spec.selector).length > 0 && selects(svc.spec.selector, p.labels))
              .map((svc) => svc.metadata.name),
          ),
          any: inNs.filter((svc) => selects(svc.spec.selector, p.labels)).length,
        };
      });
  const podServices = add(
    'podServices',
    podServicesVia('podServices', (ctx, ...filters) => fetch(ctx, svcs, ...filters)),
    (s) => expectedPodServices(s, () => true),
  );

  // The same through an index whose one group holds every service (up to 12): once it has 8, fetches by
  // selector go through the group's selector lookup instead of a scan.
  const allSvcs = newIndex(svcs, 'all', () => ['all']);
  add(
    'podServicesByLookup',
    podServicesVia('podServicesByLookup', (ctx, ...filters) => allSvcs.fetch(ctx, 'all', ...filters)),
    (s) => expectedPodServices(s, () => true),
  );

  // The same from a derived collection of the services (a whole collection, no index: its selector lookup once
  // it holds 8). A service whose name ends in 1 produces nothing while the mode is odd, so entries lose and
  // regain their outputs in place, ahead of others.
  const hiddenIn = (mode: number | undefined, svc: Svc): boolean => (mode ?? 0) % 2 === 1 && svc.metadata.name.endsWith('1');
  const derivedSvcs = newCollection(
    svcs,
    (ctx, svc): Svc | undefined =>
      hiddenIn(fetch(ctx, mode.asCollection())[0], svc) ? undefined : { metadata: svc.metadata, spec: { selector: svc.spec.selector } },
    { name: 'derivedSvcs' },
  );
  add(
    'podDerivedServices',
    podServicesVia('podDerivedServices', (ctx, ...filters) => fetch(ctx, derivedSvcs, ...filters)),
    (s) => expectedPodServices(s, (svc) => !hiddenIn(s.mode, svc)),
  );

  // filterIndex.
  add(
    'ipOwners',
    newCollection(
      simplePods,
      (ctx, p) => ({ metadata: p.metadata, sameIP: sorted(fetch(ctx, pods, filterIndex(podsByIP, p.ip)).map(key)) }),
      { name: 'ipOwners' },
    ),
    (s) =>
      s.pods
        .map(toSimple)
        .filter((p): p is SimplePod => p !== undefined)
        .map((p) => ({ metadata: p.metadata, sameIP: sorted(s.pods.filter((q) => q.status?.podIP === p.ip).map(key)) })),
  );

  // An index viewed as a collection, then derived from.
  const ipGroups = add(
    'ipGroups',
    newCollection(
      podsByIP.asCollection({ name: 'ipIndex' }),
      (_ctx, g) => ({ metadata: { name: g.key }, pods: sorted(g.objects.map(key)) }),
      { name: 'ipGroups' },
    ),
    (s) =>
      [...new Set(s.pods.flatMap((p) => (p.status ? [p.status.podIP] : [])))].map((ip) => ({
        metadata: { name: ip },
        pods: sorted(s.pods.filter((p) => p.status?.podIP === ip).map(key)),
      })),
  );

  // An index over a derived collection (whose state lives in the engine's key entries), viewed as a
  // collection and derived from: the same groups as the index over the pods themselves.
  const simplePodsByIP = newIndex(simplePods, 'ip', (p) => [p.ip]);
  add(
    'simpleIpGroups',
    newCollection(
      simplePodsByIP.asCollection({ name: 'simpleIpIndex' }),
      (_ctx, g) => ({ metadata: { name: g.key }, pods: sorted(g.objects.map(key)) }),
      { name: 'simpleIpGroups' },
    ),
    (s) => expectedOf(s, 'ipGroups') as { metadata: { name: string }; pods: string[] }[],
  );

  // partialFetch: the projections cover everything the filters and the result depend on.
  add(
    'podKeys',
    newSingleton(
      (ctx) => ({
        keys: sorted(partialFetch(ctx, pods, key)),
        tierX: sorted(
          partialFetch(
            ctx,
            pods,
            (p) => `${key(p)}|${p.metadata.labels['app'] ?? ''}|${p.metadata.labels['tier'] ?? ''}`,
            filterLabel({ tier: 'x' }),
          ),
        ),
      }),
      { name: 'podKeys' },
    ).asCollection(),
    (s) => [
      {
        keys: sorted(s.pods.map(key)),
        tierX: sorted(
          s.pods
            .filter((p) => p.metadata.labels['tier'] === 'x')
            .map((p) => `${key(p)}|${p.metadata.labels['app'] ?? ''}|${p.metadata.labels['tier'] ?? ''}`),
        ),
      },
    ],
  );

  return { simplePods, svcInfo, endpoints, podServices, ipGroups };
}
