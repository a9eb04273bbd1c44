// A bounded, ordered log of committed changes: the window watches replay from and snapshots rewind through.
import type { StoredObject } from './storedObject.js';

/** One committed change, as every watch and the history see it. */
export interface StoreEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The change's resourceVersion (the global counter after the write). */
  readonly rv: number;
  readonly storageKey: string;
  /** State after the change; for `DELETED`, the last state stamped with the deletion's resourceVersion. */
  readonly object: StoredObject;
  /** State before the change; absent for `ADDED`. */
  readonly previous?: StoredObject;
}

/**
 * A ring buffer of the last `capacity` events (etcd keeps a time window; a count is easier to reason
 * about in tests). It remembers the oldest resourceVersion it can still replay from: anything older
 * was evicted or compacted away and must be answered with `410 Expired`.
 */
export class EventHistory {
  private readonly ring: Array<StoreEvent | undefined>;
  private head = 0; // index of the oldest event
  private size = 0;
  private floor = 0; // the smallest rv a replay may start after

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`history capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array<StoreEvent | undefined>(capacity);
  }

  /** Appends an event; when full, the oldest is dropped and replays from before it become impossible. */
  push(event: StoreEvent): void {
    if (this.size === this.capacity) {
      const evicted = this.ring[this.head]!;
      this.floor = Math.max(this.floor, evicted.rv);
      this.ring[this.head] = event;
      this.head = (this.head + 1) % this.capacity;
      return;
    }
    this.ring[(this.head + this.size) % this.capacity] = event;
    this.size++;
  }

  /** Forgets everything: only replays from `rv` (the counter at compaction) or later stay possible. */
  compact(rv: number): void {
    this.ring.fill(undefined);
    this.head = 0;
    this.size = 0;
    this.floor = Math.max(this.floor, rv);
  }

  /** The oldest resourceVersion a replay may start after (`rv < oldestReplayable()` is expired). */
  oldestReplayable(): number {
    return this.floor;
  }

  /** Events with a resourceVersion greater than `rv`, oldest first. The caller checks expiry first. */
  after(rv: number): StoreEvent[] {
    // Binary search for the first event newer than rv: resourceVersions increase along the ring.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: StoreEvent[] = [];
    for (let i = lo; i < this.size; i++) out.push(this.at(i));
    return out;
  }

  private at(i: number): StoreEvent {
    return this.ring[(this.head + i) % this.capacity]!;
  }
}
