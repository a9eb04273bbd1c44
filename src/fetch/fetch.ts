// The fetch family: read a collection inside a transform and record the dependency.
import type { Collection, HandlerContext } from '../core/types.js';
import { internal, type IndexHandle } from '../engine/internalCollection.js';
import { equals } from '../core/equals.js';
import { UsageError } from '../core/errors.js';
import { buildDependency, buildIndexedDependency } from './buildDependency.js';
import { listMatching, listMatchingOnce } from './listMatching.js';
import { trackingContext } from '../engine/derived/transformContext.js';
import type { FetchFilter } from './filters.js';

/**
 * Reads the objects of `c` that pass every filter, and records the dependency so that a change to a
 * matching object (before or after the change) recomputes the current input.
 * @throws UsageError when `ctx` is not a transform's context, or when key and index filters are combined.
 * @example const svcs = fetch(ctx, services, filterIndex(byNamespace, pod.metadata.namespace), filterSelectsNonEmpty(podLabels));
 */
export function fetch<T>(ctx: HandlerContext, c: Collection<T>, ...filters: FetchFilter<NoInfer<T>>[]): T[] {
  const tc = trackingContext(ctx, 'fetch');
  const dep = buildDependency(internal(c, 'fetch') as never, filters, undefined, tc.candidate());
  tc.record(dep);
  return listMatching(dep) as T[];
}

/**
 * @internal `fetch(ctx, collection, filterIndex(index, key), ...filters)` without building the filter list
 * (Index.fetch). The index's own collection needs no check: `newIndex` made sure it is one of rxkrt's.
 */
export function fetchIndexed<T>(
  ctx: HandlerContext,
  handle: IndexHandle<unknown>,
  key: string,
  filters: readonly FetchFilter<never>[],
): T[] {
  const tc = trackingContext(ctx, 'fetch');
  const dep = buildIndexedDependency(handle.source, handle, key, filters, tc.candidate());
  tc.record(dep);
  return listMatching(dep) as T[];
}

/**
 * Like `fetch`, for at most one object.
 * @throws UsageError when more than one object matches (naming the collection and the keys found).
 */
export function fetchOne<T>(ctx: HandlerContext, c: Collection<T>, ...filters: FetchFilter<NoInfer<T>>[]): T | undefined {
  const found = fetch(ctx, c, ...filters);
  if (found.length > 1) {
    const ic = internal(c, 'fetchOne');
    throw new UsageError(
      `fetchOne on collection ${JSON.stringify(c.name)} found ${found.length} objects: ` +
        found
          .slice(0, 5)
          .map((o) => JSON.stringify(ic.keyOf(o)))
          .join(', '),
    );
  }
  return found[0];
}

/** `fetch` when `ctx` is given; a plain filtered list (no dependency) when it is undefined. */
export function fetchOrList<T>(ctx: HandlerContext | undefined, c: Collection<T>, ...filters: FetchFilter<NoInfer<T>>[]): T[] {
  if (ctx !== undefined) return fetch(ctx, c, ...filters);
  return listMatchingOnce(buildDependency(internal(c, 'fetchOrList') as never, filters)) as T[];
}

/**
 * Fetches projections of the matching objects. An update whose projection is `equals` to the old one
 * recomputes nothing (adds and deletes always do). Reading anything outside the projection gives stale data.
 */
export function partialFetch<T, S>(
  ctx: HandlerContext,
  c: Collection<T>,
  project: (t: T) => S,
  ...filters: FetchFilter<NoInfer<T>>[]
): S[] {
  const tc = trackingContext(ctx, 'partialFetch');
  if (typeof project !== 'function') throw new UsageError('partialFetch needs a projection function');
  const p = project as (t: unknown) => S;
  const dep = buildDependency(internal(c, 'partialFetch') as never, filters, (a, b) => equals(p(a), p(b)));
  tc.record(dep);
  return (listMatchingOnce(dep) as T[]).map(project);
}
