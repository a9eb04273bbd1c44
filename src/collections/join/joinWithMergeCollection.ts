// joinWithMergeCollection: the union of several collections, merging the values that share a key.
import type { Collection, CollectionOptions } from '../../core/types.js';
import { requireTransform, type InternalCollection } from '../../engine/internalCollection.js';
import { freezeOutput } from '../../core/freeze.js';
import { KeyError } from '../../core/errors.js';
import { joinChildren, JoinNode } from './joinNode.js';

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
    const merged = this.merge(values);
    if (merged === undefined || merged === null) return undefined;
    // A merged value filed under a key it does not have would be unreachable downstream (readers look it up
    // by its own key): reject it like a throwing merge, which keeps the last value and reports the error.
    const k = this.keyOf(merged);
    if (k !== key) throw new KeyError(this.name, merged, `merge must keep the key: ${JSON.stringify(key)} became ${JSON.stringify(k)}`);
    return freezeOutput(merged);
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
