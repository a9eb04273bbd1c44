// What a collection has done since it was built: bumped in place by the engine, read whenever someone asks.

/**
 * @internal The counters every collection keeps. Plain fields, so that the hot path pays an increment and
 * nothing more; `collectionStats` and metrics read them when asked, never on the event path.
 */
export class CollectionCounters {
  /** Batches committed. */
  batches = 0;
  /** Events committed (a source read by derived collections alone may commit a key twice in one batch). */
  events = 0;
  /** Transform runs (derived collections only). */
  recomputations = 0;
  /** Errors reported on `errors$`. */
  errors = 0;
}
