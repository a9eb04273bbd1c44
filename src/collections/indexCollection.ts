// Index.asCollection: the groups of an index as a collection, keyed by index key (SQL's GROUP BY).
import type { Event } from '../core/event.js';
import type { CollectionDump, CollectionOptions } from '../core/types.js';
import type { IndexHandle, InternalCollection } from '../engine/internalCollection.js';
import { CollectionNode } from '../engine/collectionNode.js';
import { schedule } from '../engine/transaction.js';
import { equals } from '../core/equals.js';

/** One group of an index: the key and every object filed under it. */
export interface IndexObject<O> {
  readonly key: string;
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
export class IndexCollection<O> extends CollectionNode<IndexObject<O>> {
  private readonly source: InternalCollection<O>;
  private inbox: Event<O>[] = [];

  constructor(
    private readonly index: IndexHandle<O>,
    opts: CollectionOptions | undefined,
  ) {
    super({ key: (g: IndexObject<O>) => g.key, equals: sameGroup, ...opts }, `index/${index.name}`);
    this.source = index.source;
    this.source.addDependent(this);
    for (const k of [...index.keys()]) this.refresh(k, []);
    this.start(opts);
    this.evaluateSync();
  }

  override receive(_from: InternalCollection<unknown>, events: readonly Event<unknown>[]): void {
    if (this.disposed) return;
    for (const e of events) this.inbox.push(e as Event<O>);
    schedule(this);
  }

  flush(): void {
    const events = this.inbox;
    this.inbox = [];
    if (this.disposed) return;
    const touched = new Set<string>();
    for (const e of events) {
      if (e.old !== undefined) for (const k of this.index.extract(e.old)) touched.add(k);
      if (e.new !== undefined) for (const k of this.index.extract(e.new)) touched.add(k);
    }
    const out: Event<IndexObject<O>>[] = [];
    const keys: string[] = [];
    for (const k of touched) if (this.refresh(k, out)) keys.push(k);
    this.emit(out, keys);
  }

  /** Rebuilds one group from the index (which the source already updated in this transaction); returns whether it appended an event. */
  private refresh(key: string, out: Event<IndexObject<O>>[]): boolean {
    const objects = Array.from(this.index.lookupValues(key));
    const cur = this.state.get(key);
    if (objects.length === 0) {
      if (cur === undefined) return false;
      this.setState(key, undefined);
      out.push({ type: 'delete', old: cur });
      return true;
    }
    const next = new Group(key, objects);
    if (cur === undefined) {
      this.setState(key, next);
      out.push({ type: 'add', new: next });
    } else if (!sameGroup(cur, next)) {
      this.setState(key, next);
      out.push({ type: 'update', old: cur, new: next });
    } else {
      return false;
    }
    return true;
  }

  protected upstreamReady(): boolean {
    return this.source.hasSynced();
  }

  protected onDispose(): void {
    this.source.removeDependent(this);
    this.inbox = [];
  }

  override dump(): CollectionDump {
    return { ...super.dump(), inputCollection: this.source.name };
  }
}
