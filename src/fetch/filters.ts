// The eight fetch filters: each narrows what a fetch returns and which changes recompute the reader.
import type { Labels } from '../core/labels.js';
import { compileLabelSelector, parseLabelSelector, type LabelSelector } from '../core/labelSelector.js';
import type { IndexHandle } from '../engine/internalCollection.js';
import { UsageError } from '../core/errors.js';

/**
 * A narrowing of a fetch, made by a `filter*` function: `kind` says which (`keys` from `filterKey`, `filterKeys`
 * and `filterObjectName`; `index` from `filterIndex`; `labels` from `filterLabel`; `labelSelector` from `filterLabelSelector`; `selects`, `selectsNonEmpty`
 * and `generic` from `filterSelects`, `filterSelectsNonEmpty` and `filterGeneric`) and the other fields hold its
 * arguments. Different filters AND together; the same kind twice: the last wins. `T` is the object type a
 * filter can read: `filterGeneric`'s predicate fixes it, every other filter fits any collection.
 */
export type FetchFilter<T = unknown> =
  | { readonly kind: 'keys'; readonly keys: readonly string[] }
  | { readonly kind: 'index'; readonly index: IndexLike; readonly key: string }
  | { readonly kind: 'labels'; readonly labels: Labels }
  | { readonly kind: 'labelSelector'; readonly selector: LabelSelector }
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

/**
 * Only objects whose labels meet `selector`: a `LabelSelector` (`matchLabels` and `matchExpressions`) or
 * kubectl's text (`app=web,tier in (front,edge),!legacy`, see `parseLabelSelector`). An empty selector
 * matches every object. Like `filterLabel`, a change is matched against readers by a scan.
 * @throws UsageError at once for an invalid selector, naming it.
 * @example fetch(ctx, pods, filterLabelSelector('app=web,track notin (canary)'))
 */
export function filterLabelSelector(selector: LabelSelector | string): FetchFilter {
  const parsed = typeof selector === 'string' ? parsedText(selector) : selector;
  compileLabelSelector(parsed);
  return { kind: 'labelSelector', selector: parsed };
}

/**
 * Selector text parsed lately, so that a transform rebuilding `filterLabelSelector('app=web')` on every run
 * gets the same selector object, and its rerun reuses its dependency record instead of allocating one.
 */
const parsedTexts = new Map<string, LabelSelector>();
const PARSED_TEXTS_KEPT = 256;

function parsedText(text: string): LabelSelector {
  let s = parsedTexts.get(text);
  if (s === undefined) {
    s = Object.freeze(parseLabelSelector(text));
    if (parsedTexts.size >= PARSED_TEXTS_KEPT) parsedTexts.delete(parsedTexts.keys().next().value!);
    parsedTexts.set(text, s);
  }
  return s;
}

/**
 * Only objects whose selector selects `labels`: every `matchLabels` pair of the selector is in `labels` and
 * every `matchExpressions` entry holds (an empty selector selects all).
 */
export function filterSelects(labels: Labels): FetchFilter {
  return { kind: 'selects', labels };
}

/** As `filterSelects`, but an empty selector selects nothing (a selector of expressions only is not empty). */
export function filterSelectsNonEmpty(labels: Labels | undefined): FetchFilter {
  return { kind: 'selectsNonEmpty', labels: labels ?? {} };
}

/** Only objects for which `predicate` is true. */
export function filterGeneric<T = unknown>(predicate: (o: T) => boolean): FetchFilter<T> {
  return { kind: 'generic', predicate };
}
