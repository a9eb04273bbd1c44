// joinCollection: the union of several collections; on a shared key the earlier collection wins.
import type { Collection, CollectionOptions } from '../../core/types.js';
import { internal } from '../../engine/internalCollection.js';
import { JoinNode } from './joinNode.js';

class Join<T> extends JoinNode<T> {
  constructor(children: Collection<T>[], opts: CollectionOptions | undefined) {
    super(
      children.map((c) => internal(c)),
      opts,
      'Join',
    );
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
export function joinCollection<T>(collections: readonly Collection<T>[], opts?: CollectionOptions): Collection<T> {
  return new Join<T>([...collections], opts);
}
