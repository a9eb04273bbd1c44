// mapCollection: a 1:1 view of a collection through a function that keeps each object's key.
import { KeyError, TransformError } from '../core/errors.js';
import { freezeOutput } from '../core/freeze.js';
import type { Collection, CollectionDump, CollectionOptions } from '../core/types.js';
import { internal, requireTransform, type InternalCollection } from '../engine/internalCollection.js';
import { KEEP, KeyedView } from '../engine/keyedView.js';

class MapNode<T, U> extends KeyedView<U> {
  /** The parent object each output was mapped from: an unchanged parent object is not mapped again. */
  private readonly from = new Map<string, T>();

  constructor(
    private readonly parent: InternalCollection<T>,
    private readonly fn: (t: T) => U,
    opts: CollectionOptions<never> | undefined,
  ) {
    super([parent], { ...opts, metadata: opts?.metadata ?? parent.metadata() }, 'Map');
    // The parent's own key strings, so that no key is built a second time.
    const keys: string[] = [];
    parent.forEachKeyed((_v, k) => keys.push(k));
    this.init(opts, keys);
  }

  protected compute(key: string): U | undefined | typeof KEEP {
    const input = this.parent.getKey(key);
    if (input === undefined) {
      this.from.delete(key);
      return undefined;
    }
    if (this.from.get(key) === input && this.state.has(key)) return KEEP;
    let next: U;
    try {
      next = this.fn(input);
      const k = this.keyOf(next);
      if (k !== key)
        throw new KeyError(this.name, next, `mapCollection must keep the key: ${JSON.stringify(key)} became ${JSON.stringify(k)}`);
    } catch (e) {
      this.reportError(new TransformError(this.name, key, e));
      return KEEP;
    }
    this.from.set(key, input);
    return next;
  }

  /** Frozen only once it is known to be handed out: an equal value is dropped and the current one stays. */
  protected override admit(value: U): U {
    return freezeOutput(value);
  }

  override dump(): CollectionDump {
    return { ...super.dump(), inputCollection: this.parent.name };
  }
}

/**
 * A view of `c` with every object passed through `fn`, which must keep the object's key. Outputs are
 * cached per key and recomputed only when the parent's object changes. Inherits `c`'s metadata unless
 * given its own.
 * @example const named = mapCollection(pods, (p) => ({ metadata: p.metadata, ip: p.status?.podIP }));
 */
export function mapCollection<T, U>(c: Collection<T>, fn: (t: T) => U, opts?: CollectionOptions<U>): Collection<U> {
  const parent = internal(c, 'mapCollection');
  requireTransform(fn, 'mapCollection', 'a mapping function');
  return new MapNode<T, U>(parent, fn, opts);
}
