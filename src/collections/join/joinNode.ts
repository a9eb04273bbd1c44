// The engine shared by joinCollection and joinWithMergeCollection: each touched key is recomputed from the children.
import { TransformError, UsageError } from '../../core/errors.js';
import type { Collection, CollectionDump, CollectionOptions, InputDump } from '../../core/types.js';
import { internal, type InternalCollection } from '../../engine/internalCollection.js';
import { KEEP, KeyedView } from '../../engine/keyedView.js';

/** @internal The children a join was given, each checked to be a collection built by rxkrt (`call` names the join). */
export function joinChildren<T>(collections: readonly Collection<T>[], call: string): InternalCollection<T>[] {
  if (!Array.isArray(collections)) throw new UsageError(`${call} needs an array of collections, got ${typeof collections}`);
  return collections.map((c) => internal(c, call));
}

/**
 * @internal A collection over several children whose value for a key is a function of the children's
 * values for that key (in children order). Only keys touched in a transaction are recomputed.
 */
export abstract class JoinNode<T> extends KeyedView<T> {
  constructor(
    protected readonly children: readonly InternalCollection<T>[],
    opts: CollectionOptions<never> | undefined,
    defaultName: string,
  ) {
    // Without a `key` option, key objects as the first child does: children built with their own `key`
    // option would otherwise hold objects the join cannot key, and every reader of the join would fail.
    const first = children.at(0);
    super(children, opts?.key === undefined && first !== undefined ? { ...opts, key: (o: never) => first.keyOf(o) } : opts, defaultName);
  }

  /** Subclasses call this at the end of their constructor, once `combine` can run. */
  protected initJoin(opts: CollectionOptions<never> | undefined): void {
    const keys = new Set<string>();
    for (const c of this.children) c.forEachKeyed((_v, k) => keys.add(k));
    this.init(opts, keys);
  }

  /** The joined value for `key` from the children's current values, or undefined for none. */
  protected abstract combine(key: string, values: T[]): T | undefined;

  protected compute(key: string): T | undefined | typeof KEEP {
    const values = this.valuesFor(key);
    if (values.length === 0) return undefined;
    try {
      return this.combine(key, values) ?? undefined;
    } catch (e) {
      // Keep the last joined value; the error names the key being joined.
      this.reportError(new TransformError(this.name, key, e));
      return KEEP;
    }
  }

  /** The values the children hold for `key`, in children order. */
  protected valuesFor(key: string): T[] {
    const values: T[] = [];
    for (const c of this.children) {
      const v = c.getKey(key);
      if (v !== undefined) values.push(v);
    }
    return values;
  }

  override dump(): CollectionDump {
    const inputs: Record<string, InputDump> = {};
    for (const c of this.children) for (const v of c.values()) inputs[c.keyOf(v)] = {};
    return { ...super.dump(), inputs };
  }
}
