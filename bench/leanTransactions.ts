// The lean engine's transactions (`leanEngine.ts`): a write opens one unless one is open; the commit flushes
// the dirty nodes in rank order, then calls the handlers of every batch; writes made meanwhile run as the next.

import type { FloorEvent } from './engineFloor.js';

/** The engine floor's event: the two engines hand out the same shape. */
export type LeanEvent<O> = FloorEvent<O>;

/** What a node of the graph offers the transaction: its rank, and a flush run once per transaction. */
export interface LeanNode {
  readonly rank: number;
  queued: boolean;
  flush(): void;
}

type Phase = 'idle' | 'open' | 'propagating' | 'delivering';

/**
 * A list emptied slot by slot and reused: `length = 0` on an array is a call into V8's runtime, paid by every
 * one-key transaction once per list.
 */
export class LeanList<T> {
  private readonly items: Array<T | undefined> = [];
  length = 0;

  push(v: T): void {
    this.items[this.length++] = v;
  }

  /** Inserts at `i`, moving the items from `i` on one place up. */
  insert(i: number, v: T): void {
    for (let j = this.length++; j > i; j--) this.items[j] = this.items[j - 1];
    this.items[i] = v;
  }

  at(i: number): T {
    return this.items[i] as T;
  }

  clear(): void {
    for (let i = 0; i < this.length; i++) this.items[i] = undefined;
    this.length = 0;
  }
}

/**
 * Transactions: a write opens one unless one is open; the commit flushes the dirty nodes in rank order, then
 * calls the handlers of every batch; writes made meanwhile run as the next transaction.
 */
export class LeanTransactions {
  phase: Phase = 'idle';
  private readonly dirty = new LeanList<LeanNode>();
  private readonly delivered = new LeanList<(batch: readonly LeanEvent<unknown>[]) => void>();
  private readonly deliveredBatches = new LeanList<readonly LeanEvent<unknown>[]>();
  private deferred: Array<() => void> = [];
  /** What a node's flush or a handler threw (the engine carries on; tests read it). */
  readonly failures: unknown[] = [];

  run(fn: () => void): void {
    if (this.phase === 'open') return fn();
    if (this.phase !== 'idle') {
      this.deferred.push(fn);
      return;
    }
    this.phase = 'open';
    try {
      fn();
    } finally {
      this.commit();
    }
  }

  /** Opens a transaction when none is running, for a caller that then calls `commit` in a `finally`. */
  beginIfIdle(): boolean {
    if (this.phase !== 'idle') return false;
    this.phase = 'open';
    return true;
  }

  /** Queues a node for this transaction's propagation, after every queued node of a lower rank. */
  schedule(n: LeanNode): void {
    if (n.queued) return;
    n.queued = true;
    const d = this.dirty;
    let i = d.length;
    while (i > 0 && d.at(i - 1).rank > n.rank) i--;
    d.insert(i, n);
  }

  /** Calls `handler` with `batch` once the transaction has committed. */
  deliverAfter(handler: (batch: readonly LeanEvent<unknown>[]) => void, batch: readonly LeanEvent<unknown>[]): void {
    this.delivered.push(handler);
    this.deliveredBatches.push(batch);
  }

  commit(): void {
    for (;;) {
      this.phase = 'propagating';
      // A node scheduled while another flushes ranks above it, so it lands after the running one.
      for (let i = 0; i < this.dirty.length; i++) {
        const n = this.dirty.at(i);
        n.queued = false;
        try {
          n.flush();
        } catch (e) {
          this.failures.push(e);
        }
      }
      this.dirty.clear();
      this.phase = 'delivering';
      for (let i = 0; i < this.delivered.length; i++) {
        try {
          this.delivered.at(i)(this.deliveredBatches.at(i));
        } catch (e) {
          this.failures.push(e);
        }
      }
      this.delivered.clear();
      this.deliveredBatches.clear();
      this.phase = 'idle';
      if (this.deferred.length === 0) return;
      const next = this.deferred;
      this.deferred = [];
      this.phase = 'open';
      for (const fn of next) fn();
    }
  }
}

export const tx = new LeanTransactions();

/** Runs `fn` as one transaction (joining an open one). */
export function leanBatch(fn: () => void): void {
  tx.run(fn);
}

/** What the lean engine's commits caught (a node's flush or a handler that threw). */
export function leanFailures(): readonly unknown[] {
  return tx.failures;
}
