// Every collection not yet stopped, held weakly: metrics, readiness and the graph page read them when asked.
import type { CollectionDump } from '../core/types.js';
import type { TransformError } from '../core/errors.js';
import type { Dependent, InternalCollection } from './internalCollection.js';

/** @internal What observers read of a live collection. */
export interface LiveCollection extends InternalCollection<unknown>, Dependent {
  hasSynced(): boolean;
  dump(): CollectionDump;
  /** Batches waiting in handlers' queues (behind a Promise handler still running). */
  queuedHandlerBatches(): number;
  /** The last errors reported on `errors$`, oldest first. */
  recentErrors(): readonly TransformError[];
}

const live = new Set<WeakRef<LiveCollection>>();
// A collection dropped without `stop` leaves when it is garbage collected. (V8 keeps each WeakRef's target
// alive until the microtask queue next drains, so a loop that never yields to a macrotask holds what it built.)
const collected = new FinalizationRegistry<WeakRef<LiveCollection>>((ref) => live.delete(ref));

/** @internal Adds a collection; the returned function removes it (on dispose). */
export function trackLive(c: LiveCollection): () => void {
  const ref = new WeakRef(c);
  live.add(ref);
  collected.register(c, ref, ref);
  return () => {
    live.delete(ref);
    collected.unregister(ref);
  };
}

/** @internal The live collections, in creation order (uid). */
export function liveCollections(): LiveCollection[] {
  const out: LiveCollection[] = [];
  for (const ref of live) {
    const c = ref.deref();
    if (c !== undefined && !c.disposed) out.push(c);
  }
  return out.sort((a, b) => a.uid - b.uid);
}
