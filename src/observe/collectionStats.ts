// Counters of one collection: what it holds, how often it emitted, how much it recomputed, how often it failed.
import type { Collection } from '../core/types.js';
import { internal } from '../engine/internalCollection.js';

/** Counters of a collection since it was built. */
export interface CollectionStats {
  /** The collection's `name`. */
  readonly name: string;
  /** The collection's `uid`. */
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
  /** Whether the collection has synced. */
  readonly synced: boolean;
}

/**
 * The counters of a collection built by rxkrt, read at the moment of the call.
 * @throws TypeError for an object that is not a collection built by rxkrt.
 * @example console.log(collectionStats(workloads).recomputations);
 */
export function collectionStats(c: Collection<unknown>): CollectionStats {
  const ic = internal(c, 'collectionStats');
  const { batches, events, recomputations, errors } = ic.counters;
  return { name: ic.name, uid: ic.uid, size: ic.size, batches, events, recomputations, errors, synced: ic.hasSynced() };
}
