// The fetch family: read a collection inside a transform and record the dependency.
import type { Collection, HandlerContext } from '../core/types.js';
import { internal, type IndexHandle } from '../core/internal.js';
import { equals } from '../core/equals.js';
import { UsageError } from '../core/errors.js';
import { buildDependency, buildIndexedDependency, matches, matchesFiledBy, type Dependency } from './dependency.js';
import { trackingContext } from './context.js';
import type { FetchFilter } from './filters.js';
import { CandidateList } from '../core/candidateList.js';

/**
 * Reads the objects of `c` that pass every filter, and records the dependency so that a change to a
 * matching object (before or after the change) recomputes the current input.
 * @throws UsageError when `ctx` is not a transform's context, or when key and index filters are combined.
 * @example const svcs = fetch(ctx, services, filterIndex(byNamespace, pod.metadata.namespace), filterSelectsNonEmpty(podLabels));
 */
export function fetch<T>(ctx: HandlerContext, c: Collection<T>, ...filters: FetchFilter[]): T[] {
  const tc = trackingContext(ctx, 'fetch');
  const dep = buildDependency(internal(c) as never, filters, undefined, tc.candidate());
  tc.record(dep);
  return listMatching(dep) as T[];
}

/** @internal `fetch(ctx, c, filterIndex(index, key), ...filters)` without building the filter list (Index.fetch). */
export function fetchIndexed<T>(ctx: HandlerContext, c: Collection<T>, handle: IndexHandle<unknown>, key: string, filters: readonly FetchFilter[]): T[] {
  const tc = trackingContext(ctx, 'fetch');
  const dep = buildIndexedDependency(internal(c) as never, handle, key, filters, tc.candidate());
  tc.record(dep);
  return listMatching(dep) as T[];
}

/**
 * Like `fetch`, for at most one object.
 * @throws UsageError when more than one object matches (naming the collection and the keys found).
 */
export function fetchOne<T>(ctx: HandlerContext, c: Collection<T>, ...filters: FetchFilter[]): T | undefined {
  const found = fetch(ctx, c, ...filters);
  if (found.length > 1) {
    const ic = internal(c);
    throw new UsageError(
      `fetchOne on collection ${JSON.stringify(c.name)} found ${found.length} objects: ` +
        found.slice(0, 5).map((o) => JSON.stringify(ic.keyOf(o))).join(', '),
    );
  }
  return found[0];
}

/** `fetch` when `ctx` is given; a plain filtered list (no dependency) when it is undefined. */
export function fetchOrList<T>(ctx: HandlerContext | undefined, c: Collection<T>, ...filters: FetchFilter[]): T[] {
  if (ctx !== undefined) return fetch(ctx, c, ...filters);
  return listMatching(buildDependency(internal(c) as never, filters)) as T[];
}

/**
 * Fetches projections of the matching objects. An update whose projection is `equals` to the old one
 * recomputes nothing (adds and deletes always do). Reading anything outside the projection gives stale data.
 */
export function partialFetch<T, S>(
  ctx: HandlerContext,
  c: Collection<T>,
  project: (t: T) => S,
  ...filters: FetchFilter[]
): S[] {
  const tc = trackingContext(ctx, 'partialFetch');
  if (typeof project !== 'function') throw new UsageError('partialFetch needs a projection function');
  const p = project as (t: unknown) => S;
  const dep = buildDependency(internal(c) as never, filters, (a, b) => equals(p(a), p(b)));
  tc.record(dep);
  return (listMatching(dep) as T[]).map(project);
}

/**
 * @internal The objects a dependency selects, without copying the collection. Most fetches find zero or one
 * object (the service of a pod, the config of a namespace), and `[]` then `push` would give each such result
 * a 17-slot backing store: the first match waits in a local and the array is built once the result is known.
 */
export function listMatching(dep: Dependency): unknown[] {
  // The collecting loop is written out in each branch on purpose: with the key and lookup branches sharing
  // one helper, V8 mostly stopped optimising away the result array of a fetch whose transform only maps it
  // (646 → 702 bytes per B1 update in four of six runs of `npm run bench:alloc`).
  const src = dep.source;
  if (dep.keys !== undefined) {
    let first: unknown = undefined;
    let more: unknown[] | undefined;
    for (const k of dep.keys) {
      const v = src.getKey(k);
      if (v === undefined || !matches(dep, v, true)) continue;
      if (first === undefined) first = v;
      else if (more === undefined) more = [first, v];
      else more.push(v);
    }
    return more !== undefined ? more : first !== undefined ? [first] : [];
  }
  const index = dep.indexHandle;
  const bySelector = dep.selectsNonEmpty ?? dep.selects;
  // A fetch by selector asks the lookup of the index group or the collection for its candidates. The
  // scratch list is in use only while they are tested: `matches` can run a user's `getLabelSelector` or
  // predicate, and a fetch from there finds the list in use and scans.
  const listed = selectorCandidates;
  if (bySelector !== undefined && listed.length === 0) {
    const withEmpty = dep.selectsNonEmpty === undefined;
    const named = index !== undefined ? index.selecting(dep.indexKey!, bySelector, withEmpty, listed) : src.selecting(bySelector, withEmpty, listed);
    if (named) {
      try {
        let first: unknown = undefined;
        let more: unknown[] | undefined;
        for (let i = 0; i < listed.length; i++) {
          const v = listed.at(i);
          const selector = listed.selectorAt(i);
          if (!(selector === undefined ? matches(dep, v, true) : matchesFiledBy(dep, v, selector))) continue;
          if (first === undefined) first = v;
          else if (more === undefined) more = [first, v];
          else more.push(v);
        }
        return more !== undefined ? more : first !== undefined ? [first] : [];
      } finally {
        listed.reset();
      }
    }
  }
  return passing(dep, index !== undefined ? index.lookupValues(dep.indexKey!) : src.values());
}

/** Candidates named by a selector lookup (see `IndexHandle.selecting` and `InternalCollection.selecting`). */
const selectorCandidates = new CandidateList<unknown>();

/** The candidates that pass the dependency's value filters (the index filter is already applied). */
function passing(dep: Dependency, candidates: Iterable<unknown>): unknown[] {
  let first: unknown = undefined;
  let more: unknown[] | undefined;
  for (const v of candidates) {
    if (!matches(dep, v, true)) continue;
    if (first === undefined) first = v;
    else if (more === undefined) more = [first, v];
    else more.push(v);
  }
  return more !== undefined ? more : first !== undefined ? [first] : [];
}
