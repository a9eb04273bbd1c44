// Every collection not yet stopped: metrics, readiness and the graph page read them when asked.
//
// A collection with a `stop` signal is held in its signal's group until it is disposed, or until the signal is
// collected (a graph dropped without aborting its signal goes with the signal). Only a collection without a
// signal is the target of a WeakRef: V8's scavenger keeps such targets alive until the next full gc, so a
// WeakRef per collection kept every graph, stopped or not, until then, and building a graph cost several
// times more in gc than in work.
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

/** The collections sharing a stop signal, held for as long as the signal lives (see `groupFor`). */
class Group {
  readonly members = new Set<LiveCollection>();
  /** The one WeakRef the live set holds to this group. */
  readonly ref: WeakRef<Group> = new WeakRef(this);
}

/** The groups with members; a group whose signal was dropped unaborted leaves once it is collected. */
const groups = new Set<WeakRef<Group>>();
const groupOfSignal = new WeakMap<AbortSignal, Group>();

/** Collections without a stop signal, which leave when they are collected. */
const unstoppable = new Set<WeakRef<LiveCollection>>();
const collected = new FinalizationRegistry<WeakRef<LiveCollection>>((ref) => unstoppable.delete(ref));

/**
 * @internal Adds a collection; the returned function removes it (on dispose). Nothing kept here or in the
 * returned function refers to `stop`, so a dropped signal can still be collected.
 */
export function trackLive(c: LiveCollection, stop: AbortSignal | undefined): () => void {
  return stop === undefined ? trackWeakly(c) : trackInGroup(c, groupFor(stop));
}

/**
 * The signal's group, reachable strongly from the signal alone (a WeakMap entry) and weakly from the live
 * set. Neither the signal nor a collection is the target of a WeakRef or a FinalizationRegistry: the
 * scavenger keeps those targets alive until a full gc, and each would hold a whole stopped graph there.
 */
function groupFor(stop: AbortSignal): Group {
  let group = groupOfSignal.get(stop);
  if (group === undefined) groupOfSignal.set(stop, (group = new Group()));
  return group;
}

function trackInGroup(c: LiveCollection, group: Group): () => void {
  group.members.add(c);
  groups.add(group.ref);
  return () => {
    group.members.delete(c);
    if (group.members.size === 0) groups.delete(group.ref);
  };
}

function trackWeakly(c: LiveCollection): () => void {
  const ref = new WeakRef(c);
  unstoppable.add(ref);
  collected.register(c, ref, ref);
  return () => {
    unstoppable.delete(ref);
    collected.unregister(ref);
  };
}

/** @internal The live collections, in creation order (uid). */
export function liveCollections(): LiveCollection[] {
  const out: LiveCollection[] = [];
  for (const ref of groups) {
    const group = ref.deref();
    if (group === undefined) groups.delete(ref);
    else for (const c of group.members) if (!c.disposed) out.push(c);
  }
  for (const ref of unstoppable) {
    const c = ref.deref();
    if (c !== undefined && !c.disposed) out.push(c);
  }
  return out.sort((a, b) => a.uid - b.uid);
}
