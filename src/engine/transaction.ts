// The transaction engine: one synchronous, topologically ordered, glitch-free propagation per commit.
//
// A commit runs in phases. Propagation pops dirty nodes in rank order (a node's rank is above every
// collection it reads), so each node runs once per transaction, after all of its inputs, and emits at
// most one batch. Sources whose one written key nobody reads as a batch are settled next, outside the rank
// order. Then sync flags are settled, in rank order. Only then are handlers called, so
// every handler sees a fully committed graph. Mutations attempted while the engine is propagating or
// delivering are deferred into a new transaction that starts after the current delivery.
import { RankHeap, type Ranked } from './rankHeap.js';
import { isStrictMode } from '../core/strict.js';
import { log } from '../core/logger.js';
import type { Event } from '../core/event.js';
import { TransformError, UsageError } from '../core/errors.js';

/** @internal What the engine needs from a collection. */
export interface TxNode extends Ranked {
  readonly name: string;
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
  /** Reports a failure on the node's `errors$` (a feedback loop that had to be stopped). */
  reportError(err: TransformError): void;
}

/**
 * How many transactions one commit may run in a row, each started by handlers writing during the delivery of
 * the one before. A handler that writes to what it listens to would otherwise never let the call return.
 */
export const MAX_FEEDBACK_ROUNDS = 1000;

type Phase = 'idle' | 'open' | 'propagating' | 'delivering';

let phase: Phase = 'idle';
const dirty = new RankHeap<TxNode>();
const syncDirty = new RankHeap<TxNode>();
/** Nodes flushed in this commit, for strict mode's invariant checks (left empty otherwise). */
let touched: TxNode[] = [];
/**
 * Work queued for after the commit. Drained by index and emptied slot by slot, never replaced: a fresh
 * array per commit would be an allocation for every single-event transaction.
 */
const afterCommit: Array<(() => void) | readonly BatchReceiver[] | undefined> = [];
/** For deliveries in `afterCommit`: the batch, and whether it counts towards the receivers' initial sync. */
const afterCommitBatch: Array<readonly Event<unknown>[] | undefined> = [];
const afterCommitInitial: boolean[] = [];
let afterCommitLength = 0;

/** @internal Takes committed batches: a handler registration. */
export interface BatchReceiver {
  deliver(batch: readonly Event<unknown>[], initial: boolean): void;
}
/**
 * @internal A node whose writes of this transaction nobody reads as a batch (a source read only by collections
 * it hands its writes to): it has nothing to emit, so it is settled after propagation instead of taking a
 * place in the rank order. Must not throw.
 */
export interface UnreadNode extends TxNode {
  settleUnread(): void;
}
/** Nodes waiting for `settleUnread`, emptied slot by slot like `afterCommit`. */
const unread: Array<UnreadNode | undefined> = [];
let unreadLength = 0;

let deferred: Array<() => void> = [];
/**
 * Told how long a transaction took, in seconds, for one transaction in 16 while metrics are collected. Reading
 * the clock twice costs about as much as a one-event transaction itself, so only a sample pays it.
 */
let transactionObserver: ((seconds: number) => void) | undefined;
let transactionsCommitted = 0;
const TIMED_TRANSACTION_MASK = 15;

/** @internal Sets (or, with undefined, clears) the function told sampled transactions' durations. */
export function observeTransactions(observer: ((seconds: number) => void) | undefined): void {
  transactionObserver = observer;
}

/** @internal Transactions committed since the process started (each round of a feedback loop counts). */
export function transactionCount(): number {
  return transactionsCommitted;
}

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
    fn();
    return;
  }
  if (phase !== 'idle') {
    deferred.push(fn);
    return;
  }
  phase = 'open';
  try {
    fn();
  } finally {
    commit();
  }
}

/** @internal True inside an open transaction (a `batch` or a mutation), where writes apply directly. */
export function isOpen(): boolean {
  return phase === 'open';
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
  if (isStrictMode()) touched.push(node);
}

/**
 * @internal Settles a node after this transaction's propagation (see `UnreadNode`). A node that turns out to
 * have readers after all is `schedule`d as well, and its flush leaves `settleUnread` nothing to do.
 */
export function settleAfterPropagation(node: UnreadNode): void {
  unread[unreadLength++] = node;
  if (isStrictMode()) touched.push(node);
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
  else afterCommit[afterCommitLength++] = work;
}

/**
 * @internal Hands `batch` to each receiver once the transaction has committed. The same as `afterCommitted`
 * with a closure, without the closure: this runs for every batch of every collection with handlers.
 */
export function deliverAfterCommit(receivers: readonly BatchReceiver[], batch: readonly Event<unknown>[], initial: boolean): void {
  if (phase === 'idle') {
    for (const r of receivers) r.deliver(batch, initial);
    return;
  }
  const i = afterCommitLength++;
  afterCommit[i] = receivers;
  afterCommitBatch[i] = batch;
  afterCommitInitial[i] = initial;
}

/**
 * @internal Opens a transaction if none is running, for a caller that commits it with `commitOpened` in a
 * `finally`; false when one is running (then use `mutate`). Lets a single write skip `mutate`'s closure.
 */
export function beginIfIdle(): boolean {
  if (phase !== 'idle') return false;
  phase = 'open';
  return true;
}

/** @internal Commits the transaction `beginIfIdle` opened. */
export function commitOpened(): void {
  commit();
}

function noop(): void {}

function commit(): void {
  // The first node failure of this commit or of the deferred transactions it runs; rethrown at the end.
  let nodeError: unknown;
  let rounds = 0;
  /** The nodes flushed in the last round a feedback loop is allowed (undefined until then). */
  let lastRound: TxNode[] | undefined;
  for (;;) {
    phase = 'propagating';
    const timed = (++transactionsCommitted & TIMED_TRANSACTION_MASK) === 0 && transactionObserver !== undefined;
    const startedAt = timed ? performance.now() : 0;
    let invariantError: unknown;
    // An exception escaping a node (a broken contract such as a cycle found through fetch, or an engine
    // bug) must not leave the engine stuck in 'propagating': later nodes still run, delivery still happens,
    // and the first such error is rethrown to the code that made the mutation once the commit is over.
    try {
      for (let n = dirty.pop(); n !== undefined; n = dirty.pop()) {
        n.queued = false;
        if (lastRound !== undefined) lastRound.push(n);
        try {
          n.flush();
        } catch (e) {
          nodeError ??= e;
          logNodeFailure(n, e, 'propagating a transaction');
        }
      }
      for (let i = 0; i < unreadLength; i++) {
        const n = unread[i]!;
        unread[i] = undefined;
        if (lastRound !== undefined) lastRound.push(n);
        try {
          n.settleUnread();
        } catch (e) {
          nodeError ??= e;
          logNodeFailure(n, e, 'settling a transaction');
        }
      }
      unreadLength = 0;
      for (let n = syncDirty.pop(); n !== undefined; n = syncDirty.pop()) {
        n.syncQueued = false;
        try {
          n.evaluateSync();
        } catch (e) {
          nodeError ??= e;
          logNodeFailure(n, e, 'settling its sync state');
        }
      }
      if (touched.length > 0) {
        for (const n of touched) {
          try {
            n.checkInvariants();
          } catch (e) {
            invariantError ??= e;
          }
        }
      }
    } finally {
      if (touched.length > 0) touched = [];
      phase = 'delivering';
    }
    // Delivery can queue more after-commit work (a handler that throws is reported on errors$ through
    // afterCommitted): the loop reads the length afresh, so such reports are not held until the next commit.
    let i = 0;
    try {
      for (; i < afterCommitLength; i++) {
        const w = afterCommit[i]!;
        afterCommit[i] = undefined;
        if (typeof w === 'function') {
          w();
        } else {
          const batch = afterCommitBatch[i]!;
          afterCommitBatch[i] = undefined;
          for (const r of w) r.deliver(batch, afterCommitInitial[i]!);
        }
      }
    } finally {
      // Work never throws (deliveries report their handler's errors); if some did, what follows it is dropped.
      for (; i < afterCommitLength; i++) afterCommit[i] = afterCommitBatch[i] = undefined;
      afterCommitLength = 0;
    }
    phase = 'idle';
    if (timed) transactionObserver?.((performance.now() - startedAt) / 1000);
    if (invariantError !== undefined) {
      deferred = [];
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a node threw, unchanged
      throw invariantError;
    }
    if (deferred.length === 0) {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a node threw, unchanged
      if (nodeError !== undefined) throw nodeError;
      return;
    }
    if (++rounds === MAX_FEEDBACK_ROUNDS) {
      stopFeedbackLoop(lastRound ?? []);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a node threw, unchanged
      if (nodeError !== undefined) throw nodeError;
      return;
    }
    if (rounds === MAX_FEEDBACK_ROUNDS - 1) lastRound = [];
    const next = deferred;
    deferred = [];
    phase = 'open';
    for (const fn of next) {
      try {
        fn();
      } catch (e) {
        // Nobody is left to rethrow to: the caller that asked for this mutation has long returned.
        log().error({ err: e }, 'a mutation deferred from a handler or transform threw');
      }
    }
  }
}

/** Logs what a node threw in a phase of the commit (the commit carries on, and rethrows the first at its end). */
function logNodeFailure(n: TxNode, e: unknown, doing: string): void {
  log().error({ collection: n.name, err: e }, `collection ${JSON.stringify(n.name)} failed while ${doing}`);
}

/**
 * Ends a runaway feedback loop: what every round committed stays, the writes still waiting are dropped, and
 * each collection written in the last round reports the loop on its `errors$` (and so in the log).
 */
function stopFeedbackLoop(lastRound: readonly TxNode[]): void {
  const dropped = deferred.length;
  deferred = [];
  const names = [...new Set(lastRound.map((n) => n.name))];
  const error = new UsageError(
    `feedback loop: handlers kept writing for ${MAX_FEEDBACK_ROUNDS} transactions in a row, each started by the one before ` +
      `(collections written in the last: ${names.map((n) => JSON.stringify(n)).join(', ')}); ` +
      `${dropped} waiting write${dropped === 1 ? ' was' : 's were'} dropped, everything before stays committed`,
  );
  if (lastRound.length === 0) log().error(error.message);
  for (const n of new Set(lastRound)) n.reportError(new TransformError(n.name, undefined, error));
}
