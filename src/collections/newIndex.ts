// Secondary indexes: look objects up by a derived key, fetch through them, or view them as a group-by collection.
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { internal, type IndexHandle } from '../engine/internalCollection.js';
import { UsageError } from '../core/errors.js';
import { fetchIndexed } from '../fetch/fetch.js';
import type { FetchFilter, IndexLike } from '../fetch/filters.js';
import { IndexCollection, type IndexObject } from './indexCollection.js';

/** A secondary index over a collection, kept in step with it inside every transaction. */
export interface Index<O> extends IndexLike {
  /** The objects filed under `key` (a fresh array; order unspecified). */
  lookup(key: string): O[];
  /** `fetch(ctx, collection, filterIndex(this, key), ...filters)`: reads and records the dependency. */
  fetch(ctx: HandlerContext, key: string, ...filters: FetchFilter<O>[]): O[];
  /** A collection of `{ key, objects }` groups, one per non-empty index key (absent when empty). */
  asCollection(opts?: CollectionOptions): Collection<IndexObject<O>>;
}

class IndexImpl<O> implements Index<O> {
  constructor(readonly handle: IndexHandle<unknown>) {}

  lookup(key: string): O[] {
    return Array.from(this.handle.lookupValues(key)) as O[];
  }

  fetch(ctx: HandlerContext, key: string, ...filters: FetchFilter<O>[]): O[] {
    return fetchIndexed(ctx, this.handle, key, filters);
  }

  asCollection(opts?: CollectionOptions): Collection<IndexObject<O>> {
    return new IndexCollection<O>(this.handle as IndexHandle<O>, opts);
  }
}

/**
 * Indexes `c` by the keys `extract` returns for each object (an object may be filed under several keys).
 * The name is the index's identity on `c`: asking again for a name returns the existing index (its first
 * extract function stays), so rebuilding code does not pile up indexes.
 * @example const byIP = newIndex(pods, 'ip', (p) => (p.status?.podIP ? [p.status.podIP] : []));
 */
export function newIndex<O>(c: Collection<O>, name: string, extract: (o: O) => readonly string[]): Index<O> {
  if (typeof extract !== 'function')
    throw new UsageError(`newIndex ${JSON.stringify(name)} on ${JSON.stringify(c.name)} needs an extract function`);
  const handle = internal(c, 'newIndex').indexFor(name, extract);
  return new IndexImpl<O>(handle as IndexHandle<unknown>);
}

/** Names of unnamed indexes, by extract function: the function is the index's identity (see `unnamedIndex`). */
const unnamed = new WeakMap<object, string>();
let unnamedCount = 0;

/**
 * `newIndex` without a name (krt's `UnnamedIndex`): the extract function is the identity, so two calls with
 * the same function on one collection share an index, and two functions never do.
 * @example const byNode = unnamedIndex(pods, podNode); // podNode: a function defined once, not inline
 */
export function unnamedIndex<O>(c: Collection<O>, extract: (o: O) => readonly string[]): Index<O> {
  if (typeof extract !== 'function') throw new UsageError(`unnamedIndex on ${JSON.stringify(c.name)} needs an extract function`);
  let name = unnamed.get(extract);
  if (name === undefined) unnamed.set(extract, (name = `unnamed#${++unnamedCount}${extract.name ? ` ${extract.name}` : ''}`));
  return newIndex(c, name, extract);
}

/** The namespace of an object: `getNamespace()`, else `metadata.namespace`, else `''`. */
export function namespaceOf(o: unknown): string {
  if (o === null || typeof o !== 'object') return '';
  const r = o as { getNamespace?: () => string | undefined; metadata?: { namespace?: string } };
  if (typeof r.getNamespace === 'function') return r.getNamespace() ?? '';
  return r.metadata?.namespace ?? '';
}

const byNamespace = (o: unknown): readonly string[] => [namespaceOf(o)];

/** Indexes `c` by namespace (`getNamespace()`, else `metadata.namespace`, else `''`). */
export function newNamespaceIndex<O>(c: Collection<O>): Index<O> {
  return newIndex(c, 'namespace', byNamespace);
}
