// joinWithMergeCollection: the union of several collections, merging the values that share a key.
import type { Collection, CollectionOptions } from '../core/types.js';
import { internal } from '../core/internal.js';
import { freezeOutput } from '../core/freeze.js';
import { JoinNode } from './joinInternals.js';

class MergeJoin<T> extends JoinNode<T> {
  constructor(
    children: Collection<T>[],
    private readonly merge: (values: T[]) => T | undefined,
    opts: CollectionOptions | undefined,
  ) {
    super(children.map((c) => internal(c)), opts, 'JoinWithMerge');
    this.init(opts);
  }

  protected combine(_key: string, values: T[]): T | undefined {
    const merged = this.merge(values);
    return merged === undefined || merged === null ? undefined : freezeOutput(merged);
  }
}

/**
 * The union of `collections` where values sharing a key are combined by `merge` (given the values in
 * the order of the collections; undefined means the key is absent). A deleted key emits one `delete`.
 */
export function joinWithMergeCollection<T>(
  collections: readonly Collection<T>[],
  merge: (values: T[]) => T | undefined,
  opts?: CollectionOptions,
): Collection<T> {
  return new MergeJoin<T>([...collections], merge, opts);
}
