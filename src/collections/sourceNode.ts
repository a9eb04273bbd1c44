// The base of source collections: writes land in the state at once and leave as one compacted batch per transaction.
import type { Event } from '../core/event.js';
import type { CollectionOptions } from '../core/types.js';
import { beginIfIdle, commitOpened, isOpen, mutate, schedule, scheduleSync } from '../core/transaction.js';
import { CollectionNode } from './node.js';
import { TransformError } from '../core/errors.js';

/**
 * @internal A collection fed from outside the graph. Reads inside a transaction see its writes at once;
 * downstream sees one batch per transaction, where several writes to one key fold into one event.
 */
export abstract class SourceNode<T> extends CollectionNode<T> {
  /**
   * The first key written in this transaction, its value before the write (undefined: absent) and whether
   * some write to it was unconditional. Most transactions write one key (an informer event, one
   * `updateObject`): they never touch the maps below, whose entries would be added and removed each time.
   */
  private firstKey: string | undefined = undefined;
  private firstOld: T | undefined = undefined;
  private firstForced = false;
  /** Further keys written in this transaction, with their value before the first write. */
  private readonly pending = new Map<string, T | undefined>();
  /**
   * Which further keys had an unconditional write (their update is emitted even when equal). A transaction
   * is almost always all one kind (`updateObject` is unconditional, informers and `reset` are not): the
   * flags say which, and the set is filled only once both kinds appear.
   */
  private allForced = false;
  private mixed = false;
  private readonly forced = new Set<string>();
  protected override readonly emitsEqualUpdates = true;
  private markedSynced: boolean;

  constructor(opts: CollectionOptions | undefined, defaultName: string, synced: boolean) {
    super(opts, defaultName);
    this.markedSynced = synced;
    if (synced) this.syncState.markSynced();
  }

  /** Marks the source synced (its initial state is complete). */
  markSynced(): void {
    mutate(() => {
      if (this.markedSynced) return;
      this.markedSynced = true;
      scheduleSync(this);
    });
  }

  protected upstreamReady(): boolean {
    return this.markedSynced;
  }

  /** Writes one key in the open transaction, or as a transaction of its own (no closure when one is open). */
  protected writeOne(key: string, next: T | undefined, forced: boolean): void {
    if (isOpen()) {
      this.write(key, next, forced);
    } else if (beginIfIdle()) {
      try {
        this.write(key, next, forced);
      } finally {
        commitOpened();
      }
    } else {
      mutate(() => this.write(key, next, forced));
    }
  }

  /** Writes one key inside the current transaction (callers wrap in `mutate`). */
  protected write(key: string, next: T | undefined, forced: boolean): void {
    const cur = this.state.get(key);
    if (cur === undefined && next === undefined) return;
    if (this.firstKey === undefined) {
      this.firstKey = key;
      this.firstOld = cur;
      this.firstForced = forced;
      schedule(this);
    } else if (key === this.firstKey) {
      if (forced) this.firstForced = true;
    } else {
      const firstOfTheRest = this.pending.size === 0;
      if (firstOfTheRest) {
        this.allForced = forced;
      } else if (this.mixed) {
        if (forced) this.forced.add(key);
      } else if (forced !== this.allForced) {
        // Both kinds now: from here on the set says which keys were forced. Until now, all or none were.
        this.mixed = true;
        if (this.allForced) for (const k of this.pending.keys()) this.forced.add(k);
        else this.forced.add(key);
      }
      if (!this.pending.has(key)) this.pending.set(key, cur);
    }
    this.setState(key, next);
  }

  private wasForced(key: string): boolean {
    return this.mixed ? this.forced.has(key) : this.allForced;
  }

  flush(): void {
    const first = this.firstKey;
    if (first === undefined) return;
    const firstEvent = this.change(this.firstOld, this.state.get(first), this.firstForced);
    this.firstKey = undefined;
    this.firstOld = undefined;
    if (this.pending.size === 0) {
      // Exact-size literals: a `push`ed array gets a 17-slot store, for every single-event transaction.
      if (firstEvent !== undefined) this.emit([firstEvent], [first]);
      return;
    }
    const out: Event<T>[] = [];
    const keys: string[] = [];
    if (firstEvent !== undefined) {
      out.push(firstEvent);
      keys.push(first);
    }
    // forEach, not for-of over entries: the entries iterator built a [key, value] pair per key.
    this.pending.forEach((old, key) => {
      const e = this.change(old, this.state.get(key), this.wasForced(key));
      if (e === undefined) return;
      out.push(e);
      keys.push(key);
    });
    // Only transactions that wrote two keys or more get here: a single key never enters the map.
    this.pending.clear();
    if (this.mixed) {
      this.forced.clear();
      this.mixed = false;
    }
    this.emit(out, keys);
  }

  /** The event that takes a key from `old` to `next` (undefined: absent), if any. */
  private change(old: T | undefined, next: T | undefined, forced: boolean): Event<T> | undefined {
    if (old === undefined) return next === undefined ? undefined : { type: 'add', new: next };
    if (next === undefined) return { type: 'delete', old };
    return forced || !this.sameValue(old, next) ? { type: 'update', old, new: next } : undefined;
  }

  /** `equals` that never throws out of a commit: a user `equals` that throws counts as "different" and is reported. */
  private sameValue(a: T, b: T): boolean {
    if (a === b) return true;
    try {
      return this.eq(a, b);
    } catch (e) {
      this.reportError(new TransformError(this.name, undefined, e, 'equals threw'));
      return false;
    }
  }

  protected override committedValues(): Iterable<T> {
    const first = this.firstKey;
    if (first === undefined) return this.state.values();
    const out: T[] = [];
    for (const [k, v] of this.state) if (k !== first && !this.pending.has(k)) out.push(v);
    if (this.firstOld !== undefined) out.push(this.firstOld);
    for (const old of this.pending.values()) if (old !== undefined) out.push(old);
    return out;
  }

  protected onDispose(): void {
    this.firstKey = undefined;
    this.firstOld = undefined;
    this.pending.clear();
    this.forced.clear();
    this.mixed = false;
  }
}
