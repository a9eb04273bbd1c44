// newCollection: one output (or none) per input.
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { internal, requireTransform } from '../engine/internalCollection.js';
import { DerivedCollection, type ManyTransform } from '../engine/derived/derivedCollection.js';

/**
 * Derives a collection with at most one output per input. The transform must be pure: it reads other
 * collections only through `fetch` (which records what it read) and returns the output, or
 * undefined/null for none. Only the inputs affected by a change are recomputed.
 * @example
 * const workloads = newCollection(pods, (ctx, pod) => ({ metadata: pod.metadata, services: fetch(ctx, services, filterSelects(pod.metadata.labels)) }));
 * @see newManyCollection
 */
export function newCollection<I, O>(
  parent: Collection<I>,
  transform: (ctx: HandlerContext, input: I) => O | undefined | null,
  opts?: CollectionOptions<O>,
): Collection<O> {
  // The engine calls the transform as is (single-output mode): no wrapper, no array per run.
  const p = internal(parent, 'newCollection');
  requireTransform(transform, 'newCollection');
  return new DerivedCollection<I, O>(p, transform as unknown as ManyTransform<I, O>, opts, 'Collection', true, true);
}
