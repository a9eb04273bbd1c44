// The base of source collections: writes land in the state at once and leave as one compacted batch per transaction.
import type { Event } from '../core/event.js';
import type { CollectionOptions } from '../core/types.js';
import type { Dependent, WriteTaker } from './internalCollection.js';
import {
  beginIfIdle,
  commitOpened,
  isOpen,
  mutate,
  schedule,
  scheduleSync,
  settleAfterPropagation,
  type UnreadNode,
} from './transaction.js';
import { CollectionNode } from './collectionNode.js';
import { TransformError, UsageError } from '../core/errors.js';
import { ScratchList } from './buffers/scratchList.js';
import { batchArray } from './buffers/batchArray.js';
import { countUnreadBatch } from './counters.js';

/** What a write found when it compared its value with the one it replaced (see `SourceNode.write`). */
type Compared = 0 | 1 | 2;
const UNCOMPARED: Compared = 0;
const DIFFERENT: Compared = 1;
const EQUAL: Compared = 2;

/**
 * @internal A collection fed from outside the graph. Reads inside a transaction see its writes at once;
 * downstream sees one batch per transaction, where several writes to one key fold into one event.
 */
export abstract class SourceNode<T> extends CollectionNode<T> implements UnreadNode {
  /**
   * The first key written in this transaction, its value before the write (undefined: absent), its value
   * now, and whether some write to it was unconditional. Most transactions write one key (an informer
   * event, one `updateObject`): they never touch the lists below.
   */
  private firstKey: string | undefined = undefined;
  private firstOld: T | undefined = undefined;
  private firstNext: T | undefined = undefined;
  private firstForced = false;
  /** What comparing the first key's only write with its value before found, if anything (see `write`). */
  private firstCompared: Compared = UNCOMPARED;
  /**
   * Every further write of this transaction, in order: key, value before, value written, unconditional.
   * A flush folds them into one event per key. Plain lists, with nothing keyed: whether some key was
   * written twice is found at the flush (see `flush`). A set of the written keys cost an insert per write,
   * and a map from key to old value a lookup and an insert per write.
   */
  private readonly restKeys = new ScratchList<string>();
  private readonly restOld = new ScratchList<T | undefined>();
  private readonly restNext = new ScratchList<T | undefined>();
  private readonly restForced = new ScratchList<boolean>();
  /** Per further write: what comparing it with the value it replaced found (a repeated key compares again). */
  private readonly restCompared = new ScratchList<Compared>();
  protected override readonly emitsEqualUpdates = true;
  private markedSynced: boolean;
  /** Derived collections of this source, handed each write as it happens (see `WriteTaker`). */
  private readonly writeTakers: WriteTaker[] = [];

  constructor(opts: CollectionOptions<never> | undefined, defaultName: string, synced: boolean) {
    super(opts, defaultName);
    this.markedSynced = synced;
    if (synced) this.syncState.markSynced();
  }

  /**
   * @internal Refuses a write from user code once the collection is stopped: nothing downstream would see it,
   * so accepting it silently would hide a bug. `call` names the method for the error.
   */
  refuseIfStopped(call: string): void {
    if (this.disposed) {
      throw new UsageError(
        `${call} on ${JSON.stringify(this.name)}: the collection was stopped; its state stays readable, writes are refused`,
      );
    }
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

  handWritesTo(taker: WriteTaker): boolean {
    if (!this.writeTakers.includes(taker)) this.writeTakers.push(taker);
    return true;
  }

  override removeDependent(node: Dependent): void {
    super.removeDependent(node);
    const i = this.writeTakers.indexOf(node as WriteTaker);
    if (i >= 0) this.writeTakers.splice(i, 1);
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

  /**
   * Writes one key inside the current transaction (callers wrap in `mutate`). `key` is as `keyOf` gives it,
   * or one the state holds. `differsFromCur`: the caller
   * compared `next` with the value it replaces and found them different, so nobody compares them again.
   */
  protected write(key: string, next: T | undefined, forced: boolean, differsFromCur = false): void {
    const cur = this.state.get(key);
    if (cur === undefined) {
      if (next === undefined) return;
      // A new key: the string the state keeps, and the events and every downstream entry share.
      key = this.keptKey(key);
    }
    const takers = this.writeTakers;
    // Derived collections take the write now, unless it would make no event (unforced, equal to what it
    // replaces). The answer is kept for the flush, which so compares each write once.
    let compared: Compared = differsFromCur ? DIFFERENT : UNCOMPARED;
    if (compared === UNCOMPARED && takers.length > 0 && !forced && cur !== undefined && next !== undefined) {
      compared = this.sameValue(cur, next) ? EQUAL : DIFFERENT;
    }
    if (this.firstKey === undefined) {
      this.firstKey = key;
      this.firstOld = cur;
      this.firstForced = forced;
      this.firstCompared = compared;
      // A write that no batch would carry to anyone only needs counting: no place in the rank order.
      if (this.batchUnread()) settleAfterPropagation(this);
      else schedule(this);
    } else if (key === this.firstKey) {
      if (forced) this.firstForced = true;
      // Compared with the first write's value, not with the value before the transaction.
      this.firstCompared = UNCOMPARED;
    } else {
      // The first write already queued what the rest needs: the flush in rank order, or the count after propagation.
      this.restKeys.push(key);
      this.restOld.push(cur);
      this.restNext.push(next);
      this.restForced.push(forced);
      this.restCompared.push(compared);
    }
    if (key === this.firstKey) this.firstNext = next;
    this.setState(key, next);
    if (takers.length === 0 || compared === EQUAL) return;
    for (let i = 0; i < takers.length; i++) takers[i]!.takeWrite(key, next);
  }

  /**
   * A transaction's writes when no batch would carry them to anyone (see `write`): counted as `flush` would
   * have counted the batch, and forgotten, with no event built for them.
   */
  settleUnread(): void {
    if (this.firstKey === undefined) return;
    const type = this.changeType(this.firstOld, this.firstNext, this.firstForced, this.firstCompared);
    this.firstKey = undefined;
    this.firstOld = undefined;
    this.firstNext = undefined;
    let adds = 0;
    let updates = 0;
    let deletes = 0;
    // Unfolded, as `flush` leaves a batch that only write takers read: a key written twice counts twice.
    for (let i = -1; i < this.restKeys.length; i++) {
      const t = i < 0 ? type : this.changeType(this.restOld.at(i), this.restNext.at(i), this.restForced.at(i), this.restCompared.at(i));
      if (t === 'add') adds++;
      else if (t === 'update') updates++;
      else if (t === 'delete') deletes++;
    }
    if (this.restKeys.length > 0) this.clearRest();
    countUnreadBatch(this.counters, adds, updates, deletes);
  }

  /** A handler or a dependent came while a write waits to be settled unread: it may read the batch, so flush. */
  override batchReadersAdded(): void {
    if (this.firstKey !== undefined) schedule(this);
  }

  flush(): void {
    const first = this.firstKey;
    if (first === undefined) return;
    // Read by write takers alone, the transaction's writes are only counted: no event, no batch.
    if (this.batchUnread()) return this.settleUnread();
    const keys = this.restKeys;
    const firstOld = this.firstOld;
    const firstNext = this.firstNext;
    this.firstKey = undefined;
    this.firstOld = undefined;
    this.firstNext = undefined;
    const firstEvent = this.change(firstOld, firstNext, this.firstForced, this.firstCompared);
    if (keys.length === 0) {
      // Exact-size literals: a `push`ed array gets a 17-slot store, for every single-event transaction.
      if (firstEvent !== undefined) this.emit([firstEvent], [first]);
      return;
    }
    const bound = keys.length + 1;
    const out = batchArray<Event<T>>(bound);
    const outKeys = batchArray<string>(bound);
    let m = 0;
    if (firstEvent !== undefined) {
      out[m] = firstEvent;
      outKeys[m++] = first;
    }
    const state = this.state;
    // Read by derived collections alone, the batch may name a key twice: they take each event's value in
    // order. The check below is a cold map probe per key in a large source, so it is skipped when it can be.
    const fold = this.batchMustBeFolded();
    for (let i = 0; i < keys.length; i++) {
      const old = this.restOld.at(i);
      const next = this.restNext.at(i);
      const key = keys.at(i);
      // A key written twice shows here, without a set of keys: take its last write and the one before.
      // Either the last wrote the value it found (the same object again), or the state no longer holds
      // what the one before wrote. A single write of the value already there looks alike, and only takes
      // the folding path.
      if (fold && (next === old || state.get(key) !== next)) {
        m = this.foldRepeated(out, outKeys, firstEvent !== undefined ? 1 : 0);
        break;
      }
      const e = this.change(old, next, this.restForced.at(i), this.restCompared.at(i));
      if (e === undefined) continue;
      out[m] = e;
      outKeys[m++] = key;
    }
    if (m < bound) out.length = outKeys.length = m;
    this.clearRest();
    this.emit(out, outKeys, !fold);
  }

  /**
   * The rest's events when some key was written more than once: one per key, in the order of its first
   * write, from its value before the transaction to its value now, forced if any of its writes was. They
   * are written from index `m` on; returns the index after the last.
   */
  private foldRepeated(out: Event<T>[], outKeys: string[], m: number): number {
    const keys = this.restKeys;
    const firstAt = new Map<string, number>();
    const forced: boolean[] = [];
    for (let i = 0; i < keys.length; i++) {
      const k = keys.at(i);
      const at = firstAt.get(k);
      if (at === undefined) {
        firstAt.set(k, forced.length);
        forced.push(this.restForced.at(i));
      } else if (this.restForced.at(i)) {
        forced[at] = true;
      }
    }
    let n = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys.at(i);
      if (firstAt.get(k) !== n) continue;
      const e = this.change(this.restOld.at(i), this.state.get(k), forced[n]!);
      n++;
      if (e === undefined) continue;
      out[m] = e;
      outKeys[m++] = k;
    }
    return m;
  }

  private clearRest(): void {
    this.restKeys.reset();
    this.restOld.reset();
    this.restNext.reset();
    this.restForced.reset();
    this.restCompared.reset();
  }

  /** The type of the event that takes a key from `old` to `next` (undefined: absent), if any. */
  private changeType(old: T | undefined, next: T | undefined, forced: boolean, compared = UNCOMPARED): Event<T>['type'] | undefined {
    if (old === undefined) return next === undefined ? undefined : 'add';
    if (next === undefined) return 'delete';
    return forced || this.differ(old, next, compared) ? 'update' : undefined;
  }

  /** The event that takes a key from `old` to `next` (undefined: absent), if any. */
  private change(old: T | undefined, next: T | undefined, forced: boolean, compared = UNCOMPARED): Event<T> | undefined {
    if (old === undefined) return next === undefined ? undefined : { type: 'add', new: next };
    if (next === undefined) return { type: 'delete', old };
    return forced || this.differ(old, next, compared) ? { type: 'update', old, new: next } : undefined;
  }

  /** Whether two present values differ, trusting what the write found when it compared them. */
  private differ(old: T, next: T, compared: Compared): boolean {
    return compared === UNCOMPARED ? !this.sameValue(old, next) : compared === DIFFERENT;
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
    // Registration in the middle of a transaction is rare: the written keys are gathered here, not per write.
    const written = new Set<string>();
    for (let i = 0; i < this.restKeys.length; i++) written.add(this.restKeys.at(i));
    const out: T[] = [];
    for (const [k, v] of this.state) if (k !== first && !written.has(k)) out.push(v);
    if (this.firstOld !== undefined) out.push(this.firstOld);
    // A key's value before the transaction is the old value of its first write.
    written.clear();
    for (let i = 0; i < this.restKeys.length; i++) {
      const k = this.restKeys.at(i);
      if (written.has(k)) continue;
      written.add(k);
      const old = this.restOld.at(i);
      if (old !== undefined) out.push(old);
    }
    return out;
  }

  protected onDispose(): void {
    this.firstKey = undefined;
    this.firstOld = undefined;
    this.firstNext = undefined;
    this.clearRest();
  }
}
