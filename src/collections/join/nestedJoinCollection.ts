// nestedJoinWithMergeCollection and nestedJoinCollection: joins over a collection of collections.
import type { Collection, CollectionOptions } from '../../core/types.js';
import { internal, requireTransform, type InternalCollection } from '../../engine/internalCollection.js';
import { mergeUnderKey } from './mergeUnderKey.js';
import { NestedJoinNode } from './nestedJoinNode.js';

class NestedMergeJoin<T> extends NestedJoinNode<T> {
  constructor(
    container: InternalCollection<Collection<T>>,
    private readonly merge: (values: T[]) => T | undefined,
    opts: CollectionOptions<never> | undefined,
  ) {
    super(container, opts, 'NestedJoinWithMerge');
    this.initNestedJoin(opts);
  }

  protected combine(key: string, values: T[]): T | undefined {
    return mergeUnderKey(this, this.merge, key, values);
  }
}

class NestedJoin<T> extends NestedJoinNode<T> {
  constructor(container: InternalCollection<Collection<T>>, opts: CollectionOptions<never> | undefined) {
    super(container, opts, 'NestedJoin');
    this.initNestedJoin(opts);
  }

  protected combine(_key: string, values: T[]): T {
    return values[0]!;
  }
}

/**
 * The union of the collections `collections` holds, which may come and go at run time. Values sharing a key
 * are combined by `merge`, given them in the order of `collections.list()`; undefined means the key is
 * absent. Adding a member that shares a key updates it, removing one updates it (or deletes it, with the
 * last); a deleted key emits one `delete`. Members must key their objects as this collection does (the
 * default `keyOf`, or the `key` option given here). Synced once the container and its members are.
 * @example
 * const clusters = newStaticCollection<Collection<Service>>([east, west]);
 * const services = nestedJoinWithMergeCollection(clusters, (svcs) => ({ ...svcs[0]!, clusters: svcs.length }));
 * clusters.updateObject(south); // south's services join in, one transaction
 */
export function nestedJoinWithMergeCollection<T>(
  collections: Collection<Collection<T>>,
  merge: (values: T[]) => T | undefined,
  opts?: CollectionOptions<NoInfer<T>>,
): Collection<T> {
  const container = internal(collections, 'nestedJoinWithMergeCollection');
  requireTransform(merge, 'nestedJoinWithMergeCollection', 'a merge function');
  return new NestedMergeJoin<T>(container, merge, opts);
}

/**
 * The union of the collections `collections` holds: on a shared key the member earliest in
 * `collections.list()` wins, and the next takes over when it lets go. krt removed its own nested join for a
 * race (several handlers writing one cache); here every key is recomputed from committed state by one writer
 * inside the transaction, so there is none. Members must key their objects as this collection does.
 * @example const everything = nestedJoinCollection(newStaticCollection<Collection<Pod>>([podsA, podsB]));
 */
export function nestedJoinCollection<T>(collections: Collection<Collection<T>>, opts?: CollectionOptions<NoInfer<T>>): Collection<T> {
  return new NestedJoin<T>(internal(collections, 'nestedJoinCollection'), opts);
}
