// mapCollection: a 1:1 view of a collection through a function that keeps each object's key.
import type { Event } from '../core/event.js';
import { KeyError, TransformError } from '../core/errors.js';
import { freezeOutput } from '../core/freeze.js';
import { schedule } from '../engine/transaction.js';
import type { Collection, CollectionDump, CollectionOptions } from '../core/types.js';
import { internal, type InternalCollection } from '../engine/internalCollection.js';
import { CollectionNode } from '../engine/collectionNode.js';

class MapNode<T, U> extends CollectionNode<U> {
  /** The parent object each output was mapped from: an unchanged parent object is not mapped again. */
  private readonly from = new Map<string, T>();
  /** Keys of the parent's batches since the last flush. */
  private inbox: string[] = [];

  constructor(
    private readonly parent: InternalCollection<T>,
    private readonly fn: (t: T) => U,
    opts: CollectionOptions | undefined,
  ) {
    super({ ...opts, metadata: opts?.metadata ?? parent.metadata() }, 'Map');
    parent.addDependent(this);
    const sink: Event<U>[] = [];
    parent.forEachKeyed((_v, k) => this.remap(k, sink));
    this.start(opts);
    this.evaluateSync();
  }

  override receive(_from: InternalCollection<unknown>, _events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    for (const k of keys) this.inbox.push(k);
    schedule(this);
  }

  flush(): void {
    const inbox = this.inbox;
    this.inbox = [];
    if (this.disposed) return;
    const out: Event<U>[] = [];
    const keys: string[] = [];
    const seen = new Set<string>();
    for (const k of inbox) {
      if (seen.has(k)) continue;
      seen.add(k);
      if (this.remap(k, out)) keys.push(k);
    }
    this.emit(out, keys);
  }

  /** Maps one key again; returns whether it appended an event to `out`. */
  private remap(key: string, out: Event<U>[]): boolean {
    const input = this.parent.getKey(key);
    const cur = this.state.get(key);
    if (input === undefined) {
      this.from.delete(key);
      if (cur === undefined) return false;
      this.setState(key, undefined);
      out.push({ type: 'delete', old: cur });
      return true;
    }
    if (cur !== undefined && this.from.get(key) === input) return false;
    let next: U;
    try {
      next = this.fn(input);
      const k = this.keyOf(next);
      if (k !== key) throw new KeyError(this.name, next, `mapCollection must keep the key: ${JSON.stringify(key)} became ${JSON.stringify(k)}`);
    } catch (e) {
      this.reportError(new TransformError(this.name, key, e));
      return false;
    }
    this.from.set(key, input);
    // Frozen only once it is known to be handed out: an equal value is dropped and the current one stays.
    if (cur === undefined) {
      next = freezeOutput(next);
      this.setState(key, next);
      out.push({ type: 'add', new: next });
    } else if (cur !== next && !this.eq(cur, next)) {
      next = freezeOutput(next);
      this.setState(key, next);
      out.push({ type: 'update', old: cur, new: next });
    } else {
      return false;
    }
    return true;
  }

  protected upstreamReady(): boolean {
    return this.parent.hasSynced();
  }

  protected onDispose(): void {
    this.parent.removeDependent(this);
    this.inbox = [];
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
export function mapCollection<T, U>(c: Collection<T>, fn: (t: T) => U, opts?: CollectionOptions): Collection<U> {
  return new MapNode<T, U>(internal(c), fn, opts);
}
