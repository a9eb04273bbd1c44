// joinCollection: the union of several collections; on a shared key the earlier collection wins.
import type { Collection, CollectionOptions } from '../../core/types.js';
import type { InternalCollection } from '../../engine/internalCollection.js';
import { joinChildren, JoinNode } from './joinNode.js';

class Join<T> extends JoinNode<T> {
  constructor(children: InternalCollection<T>[], opts: CollectionOptions<never> | undefined) {
    super(children, opts, 'Join');
    this.initJoin(opts);
  }

  protected combine(_key: string, values: T[]): T | undefined {
    return values[0];
  }
}

/**
 * The union of `collections`. When several hold the same key, the earliest in the list wins; when the
 * winner loses the key, the next one takes over (an `update`).
 * @example const allServices = joinCollection([clusterServices, serviceEntries]);
 */
export function joinCollection<T>(collections: readonly Collection<T>[], opts?: CollectionOptions<NoInfer<T>>): Collection<T> {
  return new Join<T>(joinChildren(collections, 'joinCollection'), opts);
}
