// The base of source collections: writes land in the state at once and leave as one compacted batch per transaction.
import type { Event } from '../core/event.js';
import type { CollectionOptions } from '../core/types.js';
import { mutate, schedule, scheduleSync } from '../core/transaction.js';
import { CollectionNode } from './node.js';
import { clearMap } from '../core/clearMap.js';
import { TransformError } from '../core/errors.js';

/** What a key looked like before the transaction's first write to it. */
interface Pending<T> {
  readonly old: T | undefined;
  /** An unconditional write happened: emit an update even if the final value equals the old one. */
  forced: boolean;
}

/**
 * @internal A collection fed from outside the graph. Reads inside a transaction see its writes at once;
 * downstream sees one batch per transaction, where several writes to one key fold into one event.
 */
export abstract class SourceNode<T> extends CollectionNode<T> {
  private readonly pending = new Map<string, Pending<T>>();
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

  /** Writes one key inside the current transaction (callers wrap in `mutate`). */
  protected write(key: string, next: T | undefined, forced: boolean): void {
    const cur = this.state.get(key);
    if (cur === undefined && next === undefined) return;
    let p = this.pending.get(key);
    if (p === undefined) {
      p = { old: cur, forced: false };
      this.pending.set(key, p);
      schedule(this);
    }
    if (forced) p.forced = true;
    this.setState(key, next);
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const out: Event<T>[] = [];
    for (const [key, p] of this.pending) {
      const next = this.state.get(key);
      if (p.old === undefined) {
        if (next !== undefined) out.push({ type: 'add', new: next });
      } else if (next === undefined) {
        out.push({ type: 'delete', old: p.old });
      } else if (p.forced || !this.sameValue(p.old, next)) {
        out.push({ type: 'update', old: p.old, new: next });
      }
    }
    clearMap(this.pending);
    this.emit(out);
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
    if (this.pending.size === 0) return this.state.values();
    const out: T[] = [];
    for (const [k, v] of this.state) if (!this.pending.has(k)) out.push(v);
    for (const p of this.pending.values()) if (p.old !== undefined) out.push(p.old);
    return out;
  }

  protected onDispose(): void {
    this.pending.clear();
  }
}
