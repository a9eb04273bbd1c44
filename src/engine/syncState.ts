// The sync flag of a collection or registration, with waiters that resolve when it flips.
import type { Syncer } from '../core/types.js';

/** @internal A one-way flag (unsynced → synced) with promise-based waiting. */
export class SyncState implements Syncer {
  private synced_ = false;
  private waiters_: Array<(v: boolean) => void> = [];
  private abandoned_ = false;

  constructor(synced = false) {
    this.synced_ = synced;
  }

  hasSynced(): boolean {
    return this.synced_;
  }

  /** Flips to synced (idempotent) and wakes every waiter. Returns true when this call flipped it. */
  markSynced(): boolean {
    if (this.synced_) return false;
    this.synced_ = true;
    const waiters = this.waiters_;
    this.waiters_ = [];
    for (const w of waiters) w(true);
    return true;
  }

  /** Gives up (the owner was disposed before syncing): waiters resolve false, and so do later waits. */
  abandon(): void {
    if (this.synced_) return;
    this.abandoned_ = true;
    const waiters = this.waiters_;
    this.waiters_ = [];
    for (const w of waiters) w(false);
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    if (this.synced_) return Promise.resolve(true);
    if (this.abandoned_) return Promise.resolve(false);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        this.waiters_ = this.waiters_.filter((w) => w !== settle);
        resolve(false);
      };
      const settle = (v: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      this.waiters_.push(settle);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
