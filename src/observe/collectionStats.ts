// Counters of one collection: what it holds, how often it emitted, how much it recomputed, how often it failed.
import type { Collection } from '../core/types.js';

/** Counters of a collection since it was built. */
export interface CollectionStats {
  readonly name: string;
  readonly uid: number;
  /** Objects held now. */
  readonly size: number;
  /** Batches committed. */
  readonly batches: number;
  /**
   * Events committed. A source that nothing reads but derived collections (no handler) commits a key written
   * twice in one transaction as two events: its batch is not folded for them.
   */
  readonly events: number;
  /** Transform runs (derived collections; 0 for others). */
  readonly recomputations: number;
  /** Errors reported on `errors$`. */
  readonly errors: number;
  readonly synced: boolean;
}

interface Counted {
  readonly size: number;
  batchCount?: number;
  eventCount?: number;
  recomputations?: number;
  errorCount?: number;
}

/**
 * The counters of a collection built by rxkrt.
 * @example console.log(collectionStats(workloads).recomputations);
 */
export function collectionStats(c: Collection<unknown>): CollectionStats {
  const n = c as Collection<unknown> & Counted;
  return {
    name: c.name,
    uid: c.uid,
    size: n.size ?? c.list().length,
    batches: n.batchCount ?? 0,
    events: n.eventCount ?? 0,
    recomputations: n.recomputations ?? 0,
    errors: n.errorCount ?? 0,
    synced: c.hasSynced(),
  };
}
