// The transaction engine: one synchronous, topologically ordered, glitch-free propagation per commit.
//
// A commit runs in phases. Propagation pops dirty nodes in rank order (a node's rank is above every
// collection it reads), so each node runs once per transaction, after all of its inputs, and emits at
// most one batch. Then sync flags are settled, in the same order. Only then are handlers called, so
// every handler sees a fully committed graph. Mutations attempted while the engine is propagating or
// delivering are deferred into a new transaction that starts after the current delivery.
import { RankHeap, type Ranked } from './minHeap.js';
import { isStrictMode } from './strict.js';
import { log } from './logger.js';

/** @internal What the engine needs from a collection. */
export interface TxNode extends Ranked {
  /** True while the node sits in the propagation heap. */
  queued: boolean;
  /** True while the node sits in the sync heap. */
  syncQueued: boolean;
  /** Consumes the node's inbox, commits its new state and emits its batch. Must not throw. */
  flush(): void;
  /** Flips the node to synced when everything it reads has synced. Must not throw. */
  evaluateSync(): void;
  /** Strict mode: throws when an internal invariant does not hold. */
  checkInvariants(): void;
}

type Phase = 'idle' | 'open' | 'propagating' | 'delivering';

let phase: Phase = 'idle';
let depth = 0;
const dirty = new RankHeap<TxNode>();
const syncDirty = new RankHeap<TxNode>();
let touched: TxNode[] = [];
let afterCommit: Array<() => void> = [];
let deferred: Array<() => void> = [];

/**
 * Runs `fn` as one transaction: mutations inside it commit and propagate together when the outermost
 * `batch` returns. Nested calls join the outermost one. If `fn` throws, what it did before the throw is
 * committed and the error is rethrown. Called from a handler or transform, `fn` runs in a new transaction
 * after the current delivery.
 */
export function batch(fn: () => void): void {
  mutate(fn);
}

/** @internal Runs a mutation inside the current transaction, a new one, or after the current delivery. */
export function mutate(fn: () => void): void {
  if (phase === 'open') {
    depth++;
    try {
      fn();
    } finally {
      depth--;
    }
    return;
  }
  if (phase !== 'idle') {
    deferred.push(fn);
    return;
  }
  phase = 'open';
  depth = 1;
  try {
    fn();
  } finally {
    depth = 0;
    commit();
  }
}

/** @internal True while the engine is propagating (transforms are running). */
export function isPropagating(): boolean {
  return phase === 'propagating';
}

/** @internal Marks a node dirty in the current transaction. */
export function schedule(node: TxNode): void {
  if (node.queued) return;
  node.queued = true;
  dirty.push(node);
  touched.push(node);
}

/** @internal Asks for a node's sync flag to be re-evaluated in the current (or a new) transaction. */
export function scheduleSync(node: TxNode): void {
  if (node.syncQueued) return;
  node.syncQueued = true;
  syncDirty.push(node);
  if (phase === 'idle') mutate(noop);
  // During delivery the sync heap is not drained again until another commit runs: ask for one.
  else if (phase === 'delivering') deferred.push(noop);
}

/** @internal Queues work (handler delivery, error reports) to run once the transaction has committed. */
export function afterCommitted(work: () => void): void {
  if (phase === 'idle') work();
  else afterCommit.push(work);
}

function noop(): void {}

function commit(): void {
  // The first node failure of this commit or of the deferred transactions it runs; rethrown at the end.
  let nodeError: unknown;
  for (;;) {
    phase = 'propagating';
    let invariantError: unknown;
    // An exception escaping a node (a broken contract such as a cycle found through fetch, or an engine
    // bug) must not leave the engine stuck in 'propagating': later nodes still run, delivery still happens,
    // and the first such error is rethrown to the code that made the mutation once the commit is over.
    try {
      for (let n = dirty.pop(); n !== undefined; n = dirty.pop()) {
        n.queued = false;
        try {
          n.flush();
        } catch (e) {
          nodeError ??= e;
          log().error('a collection failed while propagating a transaction', e);
        }
      }
      for (let n = syncDirty.pop(); n !== undefined; n = syncDirty.pop()) {
        n.syncQueued = false;
        try {
          n.evaluateSync();
        } catch (e) {
          nodeError ??= e;
          log().error('a collection failed while settling its sync state', e);
        }
      }
      if (isStrictMode()) {
        for (const n of touched) {
          try {
            n.checkInvariants();
          } catch (e) {
            invariantError ??= e;
          }
        }
      }
    } finally {
      touched = [];
      phase = 'delivering';
    }
    // Delivery can queue more after-commit work (a handler that throws is reported on errors$ through
    // afterCommitted): drain until nothing is left, so such reports are not held until the next commit.
    while (afterCommit.length > 0) {
      const work = afterCommit;
      afterCommit = [];
      for (const w of work) w();
    }
    phase = 'idle';
    if (invariantError !== undefined) {
      deferred = [];
      throw invariantError;
    }
    if (deferred.length === 0) {
      if (nodeError !== undefined) throw nodeError;
      return;
    }
    const next = deferred;
    deferred = [];
    phase = 'open';
    depth = 1;
    for (const fn of next) {
      try {
        fn();
      } catch (e) {
        // Nobody is left to rethrow to: the caller that asked for this mutation has long returned.
        log().error('a mutation deferred from a handler or transform threw', e);
      }
    }
    depth = 0;
  }
}
