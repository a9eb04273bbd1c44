// newManyFromNothing: a derived collection with no primary input.
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { DerivedCollection } from '../engine/derived/derivedCollection.js';
import { requireTransform } from '../engine/internalCollection.js';
import { dummyInput } from './singleton.js';

/**
 * Derives a collection from nothing but what the transform fetches (one transform for the whole set).
 * @example const ips = newManyFromNothing((ctx) => fetch(ctx, pods).map((p) => p.status.podIP));
 */
export function newManyFromNothing<O>(
  transform: (ctx: HandlerContext) => readonly O[] | undefined | null,
  opts?: CollectionOptions<O>,
): Collection<O> {
  requireTransform(transform, 'newManyFromNothing');
  return new DerivedCollection<string, O>(dummyInput(opts), (ctx) => transform(ctx), opts, 'ManyFromNothing', false);
}
