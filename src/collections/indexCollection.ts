// Index.asCollection: the groups of an index as a collection, keyed by index key (SQL's GROUP BY).
import type { Event } from '../core/event.js';
import type { CollectionDump, CollectionOptions } from '../core/types.js';
import type { IndexHandle } from '../engine/internalCollection.js';
import { KeyedView } from '../engine/keyedView.js';
import { equals } from '../core/equals.js';

/** One group of an index: the key and every object filed under it. */
export interface IndexObject<O> {
  /** The index key the group is filed under. */
  readonly key: string;
  /** The objects filed under it (never empty: an empty group is deleted). */
  readonly objects: readonly O[];
}

/** Groups are keyed by their index key; `resourceName()` lets `keyOf` key them too. */
class Group<O> implements IndexObject<O> {
  constructor(
    readonly key: string,
    readonly objects: readonly O[],
  ) {
    Object.freeze(objects);
    Object.freeze(this);
  }

  resourceName(): string {
    return this.key;
  }
}

function sameGroup<O>(a: IndexObject<O>, b: IndexObject<O>): boolean {
  if (a.key !== b.key || a.objects.length !== b.objects.length) return false;
  // Identity first (the common case); then `equals`, so that a source's update to an equal object (e.g.
  // `updateObject` with the same content) does not surface as an update between equal groups.
  for (let i = 0; i < a.objects.length; i++) if (a.objects[i] !== b.objects[i] && !equals(a.objects[i], b.objects[i])) return false;
  return true;
}

/** @internal */
export class IndexCollection<O> extends KeyedView<IndexObject<O>> {
  constructor(
    private readonly index: IndexHandle<O>,
    opts: CollectionOptions<never> | undefined,
  ) {
    super([index.source], { key: (g: IndexObject<O>) => g.key, equals: sameGroup, ...opts }, `index/${index.name}`);
    this.init(opts, [...index.keys()]);
  }

  /** A change to an object touches every group it was or is filed under. */
  protected override touch(events: readonly Event<unknown>[], _keys: readonly string[], into: Set<string>): void {
    for (const e of events as readonly Event<O>[]) {
      if (e.old !== undefined) for (const k of this.index.extract(e.old)) into.add(k);
      if (e.new !== undefined) for (const k of this.index.extract(e.new)) into.add(k);
    }
  }

  /** The group as the index holds it now (the source updated the index earlier in this transaction). */
  protected compute(key: string): IndexObject<O> | undefined {
    const objects = Array.from(this.index.lookupValues(key));
    return objects.length === 0 ? undefined : new Group(key, objects);
  }

  override dump(): CollectionDump {
    return { ...super.dump(), inputCollection: this.index.source.name };
  }
}
