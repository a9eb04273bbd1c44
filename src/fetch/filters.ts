// The eight fetch filters: each narrows what a fetch returns and which changes recompute the reader.
import type { Labels } from '../core/labels.js';
import type { IndexHandle } from '../engine/internalCollection.js';
import { UsageError } from '../core/errors.js';

/**
 * A narrowing of a fetch, made by a `filter*` function: `kind` says which (`keys` from `filterKey`, `filterKeys`
 * and `filterObjectName`; `index` from `filterIndex`; `labels` from `filterLabel`; `selects`, `selectsNonEmpty`
 * and `generic` from `filterSelects`, `filterSelectsNonEmpty` and `filterGeneric`) and the other fields hold its
 * arguments. Different filters AND together; the same kind twice: the last wins. `T` is the object type a
 * filter can read: `filterGeneric`'s predicate fixes it, every other filter fits any collection.
 */
export type FetchFilter<T = unknown> =
  | { readonly kind: 'keys'; readonly keys: readonly string[] }
  | { readonly kind: 'index'; readonly index: IndexLike; readonly key: string }
  | { readonly kind: 'labels'; readonly labels: Labels }
  | { readonly kind: 'selects'; readonly labels: Labels }
  | { readonly kind: 'selectsNonEmpty'; readonly labels: Labels }
  | { readonly kind: 'generic'; readonly predicate: (o: T) => boolean };

/** Anything `filterIndex` accepts: an `Index` built by `newIndex`. */
export interface IndexLike {
  /** @internal */
  readonly handle: IndexHandle<unknown>;
}

/** Only the object with this key. */
export function filterKey(key: string): FetchFilter {
  return { kind: 'keys', keys: [key] };
}

/** Only objects with one of these keys; with no keys, nothing matches. */
export function filterKeys(...keys: string[]): FetchFilter {
  return { kind: 'keys', keys: [...new Set(keys)].sort() };
}

/** Only the object named `namespace/name` (or `name` when there is no namespace). */
export function filterObjectName(ref: { name: string; namespace?: string }): FetchFilter {
  // `as`: plain JavaScript callers can pass anything, null or an object without a name.
  if (typeof (ref as { name?: unknown } | null | undefined)?.name !== 'string' || ref.name === '') {
    throw new UsageError(`filterObjectName needs a non-empty name, got ${JSON.stringify(ref)}`);
  }
  return filterKey(ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name);
}

/** Only objects the index files under `key`. */
export function filterIndex(index: IndexLike, key: string): FetchFilter {
  return { kind: 'index', index, key };
}

/** Only objects whose labels contain all of `labels`. */
export function filterLabel(labels: Labels): FetchFilter {
  return { kind: 'labels', labels };
}

/** Only objects whose selector is a subset of `labels` (an empty selector selects all). */
export function filterSelects(labels: Labels): FetchFilter {
  return { kind: 'selects', labels };
}

/** As `filterSelects`, but an empty selector selects nothing. */
export function filterSelectsNonEmpty(labels: Labels | undefined): FetchFilter {
  return { kind: 'selectsNonEmpty', labels: labels ?? {} };
}

/** Only objects for which `predicate` is true. */
export function filterGeneric<T = unknown>(predicate: (o: T) => boolean): FetchFilter<T> {
  return { kind: 'generic', predicate };
}
