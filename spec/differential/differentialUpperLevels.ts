// Levels 3 and 4 of the differential graph: a diamond over the lower levels, dependencies that appear
// mid-transaction, singletons over everything, and joins, each registered with the plain recomputation it must match.
import {
  fetch,
  filterGeneric,
  filterKey,
  joinCollection,
  joinWithMergeCollection,
  mapCollection,
  newCollection,
  newManyFromNothing,
  newSingleton,
  type Collection,
} from '../../src/index.js';
import { key, type Cm, type GraphBuilder, type Pod, type Snapshot } from './differentialModel.js';
import { toSimple, type addLowerLevels, type Endpoint, type PodSvcs, type SimplePod, type SvcInfo } from './differentialLowerLevels.js';

/** Adds levels 3 and 4 to the graph, over what the lower levels built. */
export function addUpperLevels(
  { pods, svcs, cms, mode, checked, add, expectedOf }: GraphBuilder,
  { simplePods, svcInfo, endpoints, podServices, ipGroups }: ReturnType<typeof addLowerLevels>,
): void {
  // Level 3: a diamond (services → svcInfo, services → endpoints, services → podServices) ------------------
  interface SvcSummary {
    metadata: { name: string; namespace: string };
    cmV: string | null;
    eps: number;
    selectedBy: number;
  }
  const summaryOf = (info: SvcInfo, eps: Endpoint[], ps: PodSvcs[]): SvcSummary => ({
    metadata: info.metadata,
    cmV: info.cmV,
    eps: eps.filter((e) => e.svc === info.metadata.name && e.metadata.namespace === info.metadata.namespace).length,
    selectedBy: ps.filter((p) => p.metadata.namespace === info.metadata.namespace && p.nonEmpty.includes(info.metadata.name)).length,
  });
  const summaries = add(
    'svcSummary',
    newCollection(svcInfo, (ctx, info) => summaryOf(info, fetch(ctx, endpoints), fetch(ctx, podServices)), { name: 'svcSummary' }),
    (s) => {
      const info = expectedOf(s, 'svcInfo') as SvcInfo[];
      const eps = expectedOf(s, 'endpoints') as Endpoint[];
      const ps = expectedOf(s, 'podServices') as PodSvcs[];
      return info.map((i) => summaryOf(i, eps, ps));
    },
  );

  // A dependency that appears mid-transaction: pods labelled deep=1 read svcSummary (ranked far above them).
  const deepReaders = (stop?: AbortSignal): Collection<unknown> =>
    newCollection(
      pods,
      (ctx, p) => ({
        metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        n:
          p.metadata.labels['deep'] === '1'
            ? fetch(
                ctx,
                summaries,
                filterGeneric((x: SvcSummary) => x.metadata.namespace === p.metadata.namespace),
              ).reduce((t, x) => t + x.eps, 0)
            : -1,
      }),
      { name: 'deepReaders', ...(stop ? { stop } : {}) },
    ) as Collection<unknown>;
  checked.push({
    name: 'deepReaders',
    collection: deepReaders(),
    rebuild: deepReaders,
    expected: (s) => {
      const sums = expectedOf(s, 'svcSummary') as SvcSummary[];
      return s.pods.map((p) => ({
        metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        n:
          p.metadata.labels['deep'] === '1'
            ? sums.filter((x) => x.metadata.namespace === p.metadata.namespace).reduce((t, x) => t + x.eps, 0)
            : -1,
      }));
    },
  });

  // A transform that fetches its own parent: every pod counts the pods of its namespace.
  add(
    'sameNamespace',
    newCollection(
      pods,
      (ctx, p) => ({
        metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        n: fetch(
          ctx,
          pods,
          filterGeneric((q: Pod) => q.metadata.namespace === p.metadata.namespace),
        ).length,
      }),
      { name: 'sameNamespace' },
    ),
    (s) =>
      s.pods.map((p) => ({
        metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        n: s.pods.filter((q) => q.metadata.namespace === p.metadata.namespace).length,
      })),
  );

  // Level 4 ------------------------------------------------------------------------------------------------
  const totalCollection = add(
    'total',
    newSingleton(
      (ctx) => ({
        eps: fetch(ctx, endpoints).length,
        groups: fetch(ctx, ipGroups).length,
        summaryEps: fetch(ctx, summaries).reduce((t, x) => t + x.eps, 0),
        mode: fetch(ctx, mode.asCollection())[0] ?? null,
        p0: fetch(ctx, simplePods, filterKey('n0/p0')).length,
      }),
      { name: 'total' },
    ).asCollection(),
    (s) => {
      const sums = expectedOf(s, 'svcSummary') as SvcSummary[];
      return [
        {
          eps: expectedOf(s, 'endpoints').length,
          groups: expectedOf(s, 'ipGroups').length,
          summaryEps: sums.reduce((t, x) => t + x.eps, 0),
          mode: s.mode ?? null,
          p0: s.pods.some((p) => key(p) === 'n0/p0' && p.status) ? 1 : 0,
        },
      ];
    },
  );

  // Another dependency appearing mid-transaction, two levels higher: services selecting app=a read `total`.
  const totalEps = (stop?: AbortSignal): Collection<unknown> =>
    newCollection(
      svcs,
      (ctx, svc) => ({
        metadata: svc.metadata,
        eps: svc.spec.selector['app'] === 'a' ? (fetch(ctx, totalCollection)[0]?.eps ?? -2) : -1,
      }),
      { name: 'totalEps', ...(stop ? { stop } : {}) },
    ) as Collection<unknown>;
  checked.push({
    name: 'totalEps',
    collection: totalEps(),
    rebuild: totalEps,
    expected: (s) => {
      const eps = expectedOf(s, 'endpoints').length;
      return s.svcs.map((svc) => ({ metadata: svc.metadata, eps: svc.spec.selector['app'] === 'a' ? eps : -1 }));
    },
  });

  add(
    'namespacesWithIPs',
    newManyFromNothing((ctx) => [...new Set(fetch(ctx, simplePods).map((p) => p.metadata.namespace))], { name: 'namespacesWithIPs' }),
    (s) => [...new Set(s.pods.filter((p) => p.status).map((p) => p.metadata.namespace))],
  );

  add(
    'endpointIPs',
    mapCollection(endpoints, (e) => ({ metadata: e.metadata, ip: e.ip }), { name: 'endpointIPs' }),
    (s) => (expectedOf(s, 'endpoints') as Endpoint[]).map((e) => ({ metadata: e.metadata, ip: e.ip })),
  );

  // Joins: pods with IPs and config maps both claim keys `ns/pN` (config map cN claims pN).
  interface Claim {
    metadata: { name: string; namespace: string };
    src: string;
    v: string;
  }
  const podClaim = (p: SimplePod): Claim => ({ metadata: p.metadata, src: 'pod', v: p.ip });
  const cmClaim = (c: Cm): Claim => ({
    metadata: { name: `p${c.metadata.name.slice(1)}`, namespace: c.metadata.namespace },
    src: 'cm',
    v: c.data.v,
  });
  const podClaims = newCollection(simplePods, (_ctx, p) => podClaim(p), { name: 'podClaims' });
  const cmClaims = newCollection(cms, (_ctx, c) => cmClaim(c), { name: 'cmClaims' });
  const claimsOf = (s: Snapshot): [Claim[], Claim[]] => [
    s.pods
      .map(toSimple)
      .filter((p): p is SimplePod => p !== undefined)
      .map(podClaim),
    s.cms.map(cmClaim),
  ];
  const joined = add('joined', joinCollection([podClaims, cmClaims], { name: 'joined' }), (s) => {
    const [a, b] = claimsOf(s);
    return [...a, ...b.filter((c) => !a.some((x) => key(x) === key(c)))];
  });
  const mergeClaims = (vs: Claim[]): Claim => ({
    metadata: vs[0]!.metadata,
    src: vs.map((v) => v.src).join('+'),
    v: vs.map((v) => v.v).join('|'),
  });
  const merged = add('merged', joinWithMergeCollection([podClaims, cmClaims], mergeClaims, { name: 'merged' }), (s) => {
    const [a, b] = claimsOf(s);
    const keys = [...new Set([...a, ...b].map(key))];
    return keys.map((k) => mergeClaims([...a.filter((x) => key(x) === k), ...b.filter((x) => key(x) === k)]));
  });
  // Over both joins (a diamond: simplePods and cms → podClaims/cmClaims → joined and merged → here).
  add(
    'claimCheck',
    newCollection(merged, (ctx, m) => ({
      metadata: m.metadata,
      winner: fetch(ctx, joined, filterKey(key(m)))[0]?.src ?? null,
      all: m.src,
    })),
    (s) =>
      (expectedOf(s, 'merged') as Claim[]).map((m) => ({
        metadata: m.metadata,
        winner: (expectedOf(s, 'joined') as Claim[]).find((j) => key(j) === key(m))?.src ?? null,
        all: m.src,
      })),
  );
}
