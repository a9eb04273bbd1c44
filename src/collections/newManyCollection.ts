// newManyCollection: any number of outputs per input.
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { internal, requireTransform } from '../engine/internalCollection.js';
import { DerivedCollection } from '../engine/derived/derivedCollection.js';

/**
 * Derives a collection with any number of outputs per input. Output keys must be unique: when two inputs
 * produce the same key, the one that produced it first keeps it and the conflict is reported on `errors$`.
 * @see newCollection
 */
export function newManyCollection<I, O>(
  parent: Collection<I>,
  transform: (ctx: HandlerContext, input: I) => readonly O[] | undefined | null,
  opts?: CollectionOptions<O>,
): Collection<O> {
  const p = internal(parent, 'newManyCollection');
  requireTransform(transform, 'newManyCollection');
  return new DerivedCollection<I, O>(p, transform, opts, 'ManyCollection');
}
