// joinWithMergeCollection: the union of several collections, merging the values that share a key.
import type { Collection, CollectionOptions } from '../../core/types.js';
import { requireTransform, type InternalCollection } from '../../engine/internalCollection.js';
import { joinChildren, JoinNode } from './joinNode.js';
import { mergeUnderKey } from './mergeUnderKey.js';

class MergeJoin<T> extends JoinNode<T> {
  constructor(
    children: InternalCollection<T>[],
    private readonly merge: (values: T[]) => T | undefined,
    opts: CollectionOptions<never> | undefined,
  ) {
    super(children, opts, 'JoinWithMerge');
    this.initJoin(opts);
  }

  protected combine(key: string, values: T[]): T | undefined {
    return mergeUnderKey(this, this.merge, key, values);
  }
}

/**
 * The union of `collections` where values sharing a key are combined by `merge` (given the values in
 * the order of the collections; undefined means the key is absent). A deleted key emits one `delete`.
 */
export function joinWithMergeCollection<T>(
  collections: readonly Collection<T>[],
  merge: (values: T[]) => T | undefined,
  opts?: CollectionOptions<NoInfer<T>>,
): Collection<T> {
  const children = joinChildren(collections, 'joinWithMergeCollection');
  requireTransform(merge, 'joinWithMergeCollection', 'a merge function');
  return new MergeJoin<T>(children, merge, opts);
}
