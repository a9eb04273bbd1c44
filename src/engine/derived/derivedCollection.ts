// The derived-collection engine behind newCollection, newManyCollection, newSingleton and newManyFromNothing.
//
// Per transaction it gathers the affected input keys (from its parent's batch and, through the dependency
// index, from the batches of collections its transforms fetched), reruns exactly those transforms against
// the committed state of everything upstream, and hands each input's outputs to the output ledger, which
// keeps who owns each output key and emits one batch.
import type { Event } from '../../core/event.js';
import { TransformError, UsageError } from '../../core/errors.js';
import { InvariantError } from '../../core/strict.js';
import type { CollectionDump, CollectionOptions, HandlerContext } from '../../core/types.js';
import { isPropagating, schedule, scheduleSync } from '../transaction.js';
import type { InternalCollection, WriteTaker } from '../internalCollection.js';
import { ScratchList } from '../buffers/scratchList.js';
import { DerivedInbox } from './derivedInbox.js';
import { isThenable } from '../thenable.js';
import { wouldCycle } from '../graph.js';
import { DependencyIndex } from './dependencyIndex.js';
import { depUnion, type DepList } from './dependency.js';
import { TransformContext } from './transformContext.js';
import { derivedInconsistency } from './derivedInvariants.js';
import type { KeyEntry } from './keyEntry.js';
import { DerivedOutputs } from './derivedOutputs.js';
import { dumpDerived } from './derivedDump.js';
import { recordTransformTime, sampleTransformTimes, TRANSFORM_SAMPLE_MASK } from '../counters.js';

/**
 * How many runs wait at most before they are settled: enough to load each half's code once for many inputs,
 * few enough that the waiting results are still in a core's caches and the run lists stay small.
 */
const RUNS_PER_SETTLE = 128;

/** Why a run whose result was a Promise failed (found only once keying it failed, so it costs the hot path nothing). */
const RETURNED_PROMISE = 'the transform returned a Promise; transforms must return their result (fetch after an await is never recorded)';

/** @internal A transform normalised to "zero or more outputs". */
export type ManyTransform<I, O> = (ctx: HandlerContext, input: I) => readonly O[] | undefined | null;

/**
 * @internal The engine of every derived collection: per transaction it gathers the affected inputs, reruns
 * their transforms and settles each result into the output side (`DerivedOutputs`). The dependency index
 * finds the inputs a fetched collection's change affects; the transform context records what a run fetched.
 */
export class DerivedCollection<I, O> extends DerivedOutputs<O> implements WriteTaker {
  private readonly deps: DependencyIndex<KeyEntry<O>>;
  private readonly inbox = new DerivedInbox();
  /** The inputs to recompute in the running flush, each once (marked `queued` while on it). */
  private readonly affected = new ScratchList<KeyEntry<O>>();
  /** Inputs whose run was abandoned because it read a collection that had not committed yet (rerun next flush). */
  private retry: KeyEntry<O>[] = [];
  /** The rank this collection had when the running flush started (Infinity outside a flush). */
  private flushRank = Infinity;
  /**
   * Runs waiting to be settled (their results staged, compared, frozen and handed to the ledger): entry,
   * result and what the run read, side by side. A flush of many inputs runs a stretch of transforms before
   * it settles their results, so that each half's code stays in the instruction cache for the stretch.
   * Only the runs' order against the settling changes: transforms read other collections alone, and every
   * effect on this collection (settling, errors, removals) keeps its order, since anything but a plain
   * result settles the waiting runs first.
   */
  private readonly ranEntries = new ScratchList<KeyEntry<O>>();
  private readonly ranResults = new ScratchList<unknown>();
  private readonly ranDeps = new ScratchList<DepList>();
  /** The context of the next transform run (reused: runs within one collection never nest). */
  private context: TransformContext | undefined;
  /**
   * Some transform fetched the parent: its batches then also go through the dependency index. Kept by the
   * index's first and last use of the parent, so that a parent's batch costs no lookup in the index.
   */
  private fetchesParent = false;
  /** The parent is a source that hands each write over (`takeWrite`): its batches carry nothing new for the inputs. */
  private readonly parentHandsWrites: boolean;
  /** A parent's batch may name a key twice (see `flush`: each event sets the input's value, the last one stays). */
  readonly takesRepeatedKeys = true;
  constructor(
    private readonly parent: InternalCollection<I>,
    private readonly transform: ManyTransform<I, O>,
    opts: CollectionOptions<never> | undefined,
    defaultName: string,
    /** Singletons have no meaningful input key to report in errors. */
    private readonly keyedInputs = true,
    /** The transform returns one output (or undefined/null), not an array: no array per run. */
    private readonly singleOutput = false,
  ) {
    super(opts, defaultName, parent.defaultKeyed);
    this.deps = new DependencyIndex<KeyEntry<O>>(
      {
        // A transform may fetch its own parent: that edge exists already and must outlive the last fetch.
        firstUse: (src) => {
          if (src !== (parent as InternalCollection<unknown>)) src.addDependent(this);
          else this.fetchesParent = true;
        },
        lastUse: (src) => {
          if (src !== (parent as InternalCollection<unknown>)) src.removeDependent(this);
          else this.fetchesParent = false;
        },
        matchFailed: (inputKey, e) =>
          this.reportError(new TransformError(this.name, this.keyedInputs ? inputKey : undefined, e, 'fetch filter threw')),
      },
      this.entries,
    );
    parent.addDependent(this);
    this.parentHandsWrites = parent.handWritesTo?.(this) === true;
    // Live from construction: nobody is registered yet, so this first batch goes nowhere (later batches of an
    // open transaction recompute idempotently). The parent's own key strings are kept, never a second copy.
    this.ledger.building = true;
    try {
      parent.forEachKeyed((input, key) => {
        const rec = this.record(key, true);
        rec.input = input;
        this.recompute(rec, true);
      });
      this.settleRuns();
    } finally {
      this.ledger.building = false;
    }
    this.ledger.settleChanged();
    this.ledger.reportConflicts();
    this.start(opts);
    this.evaluateSync();
  }

  /** A write of the parent (a source), as it happens: the input takes the value and is queued for the flush. */
  takeWrite(key: string, value: unknown): void {
    if (this.disposed) return;
    this.takeInput(key, value);
    schedule(this);
  }

  /** @internal The parent's value for an input key (undefined: gone): the entry keeps it and is queued. */
  takeInput(key: string, value: unknown): void {
    const rec = this.record(key);
    rec.input = value;
    this.queue(rec);
  }

  ignoresBatchesOf(from: InternalCollection<unknown>): boolean {
    return this.parentHandsWrites && !this.fetchesParent && from === (this.parent as InternalCollection<unknown>);
  }

  override receive(from: InternalCollection<unknown>, events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    if (from === (this.parent as InternalCollection<unknown>) && !this.parentHandsWrites) this.inbox.fromParent(events, keys);
    // The parent's batch also goes through the dependency index when some transform fetched the parent.
    if (from !== (this.parent as InternalCollection<unknown>) || this.fetchesParent) this.inbox.fromFetched(from.uid, events, keys);
    schedule(this);
  }

  flush(): void {
    const affected = this.affected;
    this.inbox.drainParent(this);
    this.inbox.drainFetched(this.deps, affected);
    if (this.retry.length > 0) {
      const again = this.retry;
      this.retry = [];
      // A retried input may have been deleted and re-added since: recompute whatever record holds its key now.
      for (const r of again) this.queue(this.record(r.key));
    }
    if (this.disposed) {
      this.dequeueFrom(0);
      return;
    }
    const rank = this.rank;
    this.flushRank = rank;
    // `affected` does not grow while it is worked through; an entry leaves it before its run, so a later flush
    // can queue it again whatever the run does. Many inputs run in stretches (see `ranEntries`).
    const deferring = affected.length > 1;
    let i = 0;
    try {
      for (; i < affected.length; i++) {
        const r = affected.at(i);
        r.queued = false;
        this.recompute(r, deferring);
      }
      this.settleRuns();
    } finally {
      this.dequeueFrom(i);
      if (this.ranEntries.length > 0) this.dropRuns();
    }
    this.flushRank = Infinity;
    this.ledger.reportConflicts();
    if (this.rank !== rank || this.retry.length > 0) {
      // A transform started fetching a collection ranked at or above this one, which may not have committed
      // yet in this transaction: its run was abandoned (see StaleRead) and this collection now ranks above
      // that one. Hold the batch and flush again at the new rank, after it: the abandoned inputs rerun on
      // committed state, and downstream sees one batch per transaction.
      schedule(this);
      return;
    }
    this.ledger.emitChanged();
  }

  /** Adds an input to this flush's work, once. */
  private queue(r: KeyEntry<O>): void {
    if (r.queued) return;
    r.queued = true;
    this.affected.push(r);
  }

  /** Empties the flush's work list, unmarking the entries from `from` on (those before it were unmarked as they ran). */
  private dequeueFrom(from: number): void {
    const affected = this.affected;
    for (let i = from; i < affected.length; i++) affected.at(i).queued = false;
    affected.reset();
  }

  protected upstreamReady(): boolean {
    if (!this.parent.hasSynced()) return false;
    for (const src of this.deps.sources()) if (!src.hasSynced()) return false;
    return true;
  }

  /**
   * @internal Fetch calls this before recording a dependency on a collection: reading one downstream of this one is a
   * cycle (throws); reading one ranked at or above this one while a transaction propagates may read state it
   * has not committed yet (returns true: the run is abandoned and retried at a higher rank).
   */
  checkSource(source: InternalCollection<unknown>): boolean {
    if (source === (this.parent as InternalCollection<unknown>)) return false;
    if (!this.deps.uses(source.uid) && wouldCycle(this, source)) {
      throw new UsageError(`cycle: ${JSON.stringify(this.name)} cannot fetch ${JSON.stringify(source.name)}, which depends on it`);
    }
    // Compared with the rank this flush started at: another input may already have linked the source in
    // this flush (raising this rank), and the source still has not committed.
    return isPropagating() && source.rank >= this.flushRank;
  }

  /** A closed context for the next run: the reused one, or a fresh one should a run be under way. */
  private contextFor(rec: KeyEntry<O>): TransformContext {
    const inputKey = this.keyedInputs ? rec.key : undefined;
    const ctx = this.context;
    if (ctx !== undefined && ctx.closed) {
      ctx.reopen(inputKey, rec.deps);
      return ctx;
    }
    return (this.context = new TransformContext(this.uid, this.name, inputKey, this, rec.deps));
  }

  /**
   * Reruns one input (its value as the parent last sent it) and records the changed outputs. Deferred, a
   * plain result waits in the run lists for `settleRuns`; anything else settles the waiting runs first.
   */
  private recompute(rec: KeyEntry<O>, deferred: boolean): void {
    const input = rec.input as I | undefined;
    if (input === undefined) {
      if (deferred) this.settleRuns();
      this.removeInput(rec);
      return;
    }
    const runs = ++this.counters.recomputations;
    const sampled = sampleTransformTimes && (runs & TRANSFORM_SAMPLE_MASK) === 0;
    const ctx = this.contextFor(rec);
    const startedAt = sampled ? performance.now() : 0;
    let result: unknown;
    try {
      result = this.transform(ctx, input);
      if (sampled) recordTransformTime(this.counters, (performance.now() - startedAt) / 1000);
    } catch (e) {
      ctx.closed = true;
      if (deferred) this.settleRuns();
      if (ctx.stale) this.retryLater(rec, ctx.deps);
      else this.fail(rec, ctx.deps, e);
      return;
    }
    ctx.closed = true;
    if (deferred) {
      if (!ctx.stale && !ctx.discarded) {
        this.ranEntries.push(rec);
        this.ranResults.push(result);
        this.ranDeps.push(ctx.deps);
        if (this.ranEntries.length === RUNS_PER_SETTLE) this.settleRuns();
        return;
      }
      this.settleRuns();
    }
    this.settle(rec, result, ctx.deps, ctx.stale, ctx.discarded);
  }

  /** Settles the runs waiting since the last call, in the order they ran. */
  private settleRuns(): void {
    const n = this.ranEntries.length;
    if (n === 0) return;
    for (let i = 0; i < n; i++) this.settle(this.ranEntries.at(i), this.ranResults.at(i), this.ranDeps.at(i), false, false);
    this.dropRuns();
  }

  private dropRuns(): void {
    this.ranEntries.reset();
    this.ranResults.reset();
    this.ranDeps.reset();
  }

  /**
   * Hands a run's result to the ledger: `deps` is what the run read, `stale` that it read a collection that
   * had not committed (the result is dropped and the input rerun), `discarded` that it asked to keep the last
   * good result.
   */
  private settle(rec: KeyEntry<O>, result: unknown, deps: DepList, stale: boolean, discarded: boolean): void {
    if (this.singleOutput && !stale && !discarded) {
      try {
        if (this.applyOwnOutput(rec, result)) {
          this.setDeps(rec, deps);
          return;
        }
      } catch (e) {
        this.fail(rec, deps, e);
        return;
      }
    }
    const staged = this.staged;
    try {
      if (this.singleOutput) this.stageOne(result as O | undefined | null, rec);
      else this.stageMany(result as readonly O[] | undefined | null, rec);
    } catch (e) {
      staged.clear();
      if (stale) this.retryLater(rec, deps);
      else this.fail(rec, deps, isThenable(result) ? new UsageError(RETURNED_PROMISE) : e);
      return;
    }
    // Also when the transform caught the StaleRead itself: its result rests on a read that did not happen.
    if (stale) {
      staged.clear();
      this.retryLater(rec, deps);
      return;
    }
    rec.clearError();
    if (discarded) {
      // Keep the last good result; a first run with a non-empty result still counts (it sets a default).
      // What this run read is added to what the kept result read, so a change to either recomputes.
      if (rec.applied || staged.isEmpty()) {
        staged.clear();
        this.keepLastGood(rec, deps);
        return;
      }
    }
    rec.clearGoodDeps();
    this.setDeps(rec, deps);
    this.ledger.apply(rec, staged.key, staged.value, staged.many, staged.differs);
    staged.clear();
  }

  private fail(rec: KeyEntry<O>, deps: DepList, e: unknown): void {
    const err = new TransformError(this.name, this.keyedInputs ? rec.key : undefined, e);
    rec.error = err.message;
    // The failed run's reads join the last good run's, so fixing whatever broke it recomputes the input.
    this.keepLastGood(rec, deps);
    this.reportError(err);
  }

  /** Abandons a run that read an uncommitted collection: link what it read (raising this rank), rerun later. */
  private retryLater(rec: KeyEntry<O>, deps: DepList): void {
    this.keepLastGood(rec, deps);
    this.retry.push(rec);
  }

  /** A run whose result is not used depends on the last good run's reads plus its own (never accumulated). */
  private keepLastGood(rec: KeyEntry<O>, deps: DepList): void {
    if (rec.goodDeps === null) rec.goodDeps = rec.deps;
    this.setDeps(rec, depUnion(rec.goodDeps, deps));
  }

  private setDeps(rec: KeyEntry<O>, deps: DepList): void {
    const before = this.hasSynced();
    this.deps.set(rec, deps);
    // A new, unsynced dependency must hold back our own sync; re-check once the dust settles.
    if (!before) scheduleSync(this);
  }

  private removeInput(rec: KeyEntry<O>): void {
    if (rec.hasOutputs()) this.ledger.apply(rec, '', undefined, undefined);
    this.deps.delete(rec);
    rec.clearInput();
    this.ledger.inputGone(rec);
  }

  protected onDispose(): void {
    this.parent.removeDependent(this);
    for (const src of [...this.deps.sources()]) src.removeDependent(this);
    this.inbox.clear();
    this.ledger.settleChanged();
    this.retry = [];
  }

  /** @internal Dependency state, for white-box tests. */
  dependencyIndex(): DependencyIndex<KeyEntry<O>> {
    return this.deps;
  }

  override dump(): CollectionDump {
    return dumpDerived(this.entries, this.parent.name, this.hasSynced());
  }

  override checkInvariants(): void {
    super.checkInvariants();
    const bad = derivedInconsistency(this.parent, this.entries, this.ledger.visibleCount, this.eq, this.deps, this.fetchesParent);
    if (bad !== undefined) throw new InvariantError(`collection ${JSON.stringify(this.name)}: ${bad}`);
  }
}
