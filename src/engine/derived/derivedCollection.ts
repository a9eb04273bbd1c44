// The derived-collection engine behind newCollection, newManyCollection, newSingleton and newManyFromNothing.
//
// Per transaction it gathers the affected input keys (from its parent's batch and, through the dependency
// index, from the batches of collections its transforms fetched), reruns exactly those transforms against
// the committed state of everything upstream, and hands each input's outputs to the output ledger, which
// keeps who owns each output key and emits one batch.
import type { Event } from '../../core/event.js';
import { KeyError, TransformError, UsageError } from '../../core/errors.js';
import { freezeOutput } from '../../core/freeze.js';
import { InvariantError } from '../../core/strict.js';
import { sameObjectName, storedKey } from '../../core/keyOf.js';
import { isPropagating, schedule, scheduleSync } from '../transaction.js';
import type { CollectionDump, CollectionOptions, HandlerContext, InputDump } from '../../core/types.js';
import type { InternalCollection } from '../internalCollection.js';
import { ScratchList } from '../buffers/scratchList.js';
import { DependencyIndex } from './dependencyIndex.js';
import { depArray, depUnion, type DepList } from './dependency.js';
import { TransformContext } from './transformContext.js';
import { CollectionNode, wouldCycle } from '../collectionNode.js';
import { keyOutputs } from './keyOutputs.js';
import { outputLedgerInconsistency } from './outputLedgerInvariants.js';
import { KeyEntry } from './keyEntry.js';
import { OutputLedger, type LedgerHost } from './outputLedger.js';
import { SelectorLookup } from '../indexes/selectorLookup.js';
import { visibleValues } from './visibleValues.js';
import { StagedOutputs } from './stagedOutputs.js';

/**
 * How many runs wait at most before they are settled. Enough to load each half's code once for many inputs;
 * few enough that the waiting results are still in a core's caches when they are settled, and that the run
 * lists, which keep their capacity, stay small (3 KB each) after a flush or a construction of 100k inputs.
 */
const RUNS_PER_SETTLE = 128;

/** @internal A transform normalised to "zero or more outputs". */
export type ManyTransform<I, O> = (ctx: HandlerContext, input: I) => readonly O[] | undefined | null;


/** @internal */
export class DerivedCollection<I, O> extends CollectionNode<O> {
  /**
   * Every key that is an input (the parent holds it) or an output (some input produces it), and, until its
   * batch is out, every output key that stopped being produced.
   */
  private readonly entries = new Map<string, KeyEntry<O>>();
  private readonly deps: DependencyIndex<KeyEntry<O>>;
  /** The parent's batches since the last flush, and their keys. */
  private readonly parentEvents = new ScratchList<readonly Event<unknown>[]>();
  private readonly parentKeys = new ScratchList<readonly string[]>();
  /** Batches of fetched collections since the last flush: source uid, events and keys, side by side. */
  private readonly depSources = new ScratchList<number>();
  private readonly depEvents = new ScratchList<readonly Event<unknown>[]>();
  private readonly depKeys = new ScratchList<readonly string[]>();
  /** The inputs to recompute in the running flush, each once (marked `queued` while on it). */
  private readonly affected = new ScratchList<KeyEntry<O>>();
  /** Inputs whose run was abandoned because it read a collection that had not committed yet (rerun next flush). */
  private retry: KeyEntry<O>[] = [];
  /** The rank this collection had when the running flush started (Infinity outside a flush). */
  private flushRank = Infinity;
  private readonly ledger: OutputLedger<O>;
  /**
   * Runs waiting to be settled (their results staged, compared, frozen and handed to the ledger): entry,
   * result and what the run read, side by side. A flush (or construction) of many inputs runs a stretch of
   * transforms before it settles their results, because the two halves together are more code than a core's
   * 32 KB instruction cache holds: run one after the other per input, each evicted the other's code, in
   * every input (`npm run bench:counts -- --only fanout`: 173 simulated instruction-cache misses per input
   * before, 16 after). Only the runs' order against the settling changes: transforms read other collections
   * alone, and every effect on this collection (settling, errors, removals) keeps its order, since anything
   * but a plain result settles the waiting runs first.
   */
  private readonly ranEntries = new ScratchList<KeyEntry<O>>();
  private readonly ranResults = new ScratchList<unknown>();
  private readonly ranDeps = new ScratchList<DepList>();
  /** A run's outputs between the transform and `applyOutputs`. */
  private readonly staged = new StagedOutputs<O>();
  /** The context of the next transform run (reused: runs within one collection never nest). */
  private context: TransformContext | undefined;
  /** Transform runs so far (metrics, benchmarks). */
  recomputations = 0;
  /**
   * Some transform fetched the parent: its batches then also go through the dependency index. Kept by the
   * index's first and last use of the parent, so that a parent's batch costs no lookup in the index.
   */
  private fetchesParent = false;
  /** A parent's batch may name a key twice (see `flush`: each event sets the input's value, the last one stays). */
  readonly takesRepeatedKeys = true;
  /**
   * Both this collection and its parent key objects with the default `keyOf`: an output with its input's
   * `metadata.name` and `namespace` then has its input's key (see `stageOne`).
   */
  private readonly keysFollowNames: boolean;

  constructor(
    private readonly parent: InternalCollection<I>,
    private readonly transform: ManyTransform<I, O>,
    opts: CollectionOptions | undefined,
    defaultName: string,
    /** Singletons have no meaningful input key to report in errors. */
    private readonly keyedInputs = true,
    /** The transform returns one output (or undefined/null), not an array: no array per run. */
    private readonly singleOutput = false,
  ) {
    super(opts, defaultName);
    this.keysFollowNames = this.defaultKeyed && parent.defaultKeyed;
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
        matchFailed: (inputKey, e) => this.reportError(new TransformError(this.name, this.keyedInputs ? inputKey : undefined, e, 'fetch filter threw')),
      },
      this.entries,
    );
    this.ledger = new OutputLedger<O>(this.entries, new LedgerHostOf<I, O>(this, this.eq));
    parent.addDependent(this);
    // Live from construction: compute everything the parent holds now. Nobody is registered yet, so the
    // batch goes nowhere; if a transaction is open, later batches from the parent recompute idempotently.
    // The parent's own key strings: a string built again per input would be a second copy of every key.
    parent.forEachKeyed((input, key) => {
      const rec = this.record(key);
      rec.input = input;
      this.recompute(rec, true);
    });
    this.settleRuns();
    this.ledger.settleChanged();
    this.ledger.reportConflicts();
    this.start(opts);
    this.evaluateSync();
  }

  // ---- reading: the visible state is the entries' values (no second map from key to value) ----------

  override getKey(key: string): O | undefined {
    return this.entries.get(key)?.value;
  }

  override list(): O[] {
    const out: O[] = [];
    for (const e of this.entries.values()) if (e.value !== undefined) out.push(e.value);
    return out;
  }

  override values(): IterableIterator<O> {
    return visibleValues(this.entries);
  }

  override forEachKeyed(fn: (value: O, key: string) => void): void {
    for (const [k, e] of this.entries) if (e.value !== undefined) fn(e.value, k);
  }

  override get size(): number {
    return this.ledger.visibleCount;
  }

  /**
   * The lookup follows the entries, whose order is `values()` order: every entry has its place in it, and
   * an entry without a visible value (an input whose transform produced nothing, an output key between owners)
   * keeps an empty one.
   */
  protected override buildSelectorLookup(): SelectorLookup<O> {
    const lookup = new SelectorLookup<O>();
    for (const [k, e] of this.entries) {
      if (e.value !== undefined) lookup.set(k, e.value);
      else lookup.reserve(k);
    }
    return lookup;
  }

  protected override lookupInconsistency(): string | undefined {
    const lookup = this.selectorLookup;
    if (lookup === undefined) return undefined;
    const visible = new Map<string, O | undefined>();
    for (const [k, e] of this.entries) visible.set(k, e.value);
    return lookup.inconsistency(visible);
  }

  override receive(from: InternalCollection<unknown>, events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    if (from === (this.parent as InternalCollection<unknown>)) {
      this.parentEvents.push(events);
      this.parentKeys.push(keys);
    }
    // The parent's batch also goes through the dependency index when some transform fetched the parent.
    if (from !== (this.parent as InternalCollection<unknown>) || this.fetchesParent) {
      this.depSources.push(from.uid);
      this.depEvents.push(events);
      this.depKeys.push(keys);
    }
    schedule(this);
  }

  flush(): void {
    const affected = this.affected;
    // The parent's batches carry each input's committed value (a later event overrides an earlier one, in a
    // later batch or in the same one: a source read by derived collections alone does not fold its batch).
    // It is kept in the input's entry, so no recompute looks the key up in the parent again.
    const parentBatches = this.parentKeys.length;
    for (let b = 0; b < parentBatches; b++) {
      const keys = this.parentKeys.at(b);
      const events = this.parentEvents.at(b);
      for (let i = 0; i < keys.length; i++) {
        const rec = this.record(keys[i]!);
        rec.input = events[i]!.new;
        this.queue(rec);
      }
    }
    // Most flushes have batches from the parent alone, or from fetched collections alone: the lists of the
    // other kind are empty, and emptying them is a call each (B1 as transactions pays every flush's fixed cost).
    if (parentBatches > 0) {
      this.parentKeys.reset();
      this.parentEvents.reset();
    }
    if (this.depSources.length > 0) {
      for (let b = 0; b < this.depSources.length; b++) {
        this.deps.collectAffected(this.depSources.at(b), this.depEvents.at(b), this.depKeys.at(b), affected);
      }
      this.depSources.reset();
      this.depEvents.reset();
      this.depKeys.reset();
    }
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
    // Index loop: `affected` does not grow while it is worked through (dependency marks happen above). An
    // entry leaves the list before its run, so that a later flush can queue it again whatever the run does.
    // Many inputs: transforms run in stretches of up to RUNS_PER_SETTLE inputs, each followed by the
    // settling of its results (see `ranEntries`).
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

  /** The entry of an input key, created on first sight. */
  private record(key: string): KeyEntry<O> {
    let r = this.entries.get(key);
    if (r === undefined) {
      const kept = storedKey(key);
      r = new KeyEntry<O>(kept);
      this.entries.set(kept, r);
      this.selectorLookup?.reserve(kept);
    }
    r.isInput = true;
    return r;
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

  /** @internal The ledger changed a key's visible value: the lookup and the indexes follow. */
  outputChanged(key: string, old: O | undefined, value: O | undefined): void {
    const lookup = this.selectorLookup;
    if (lookup !== undefined) {
      if (value === undefined) lookup.vacate(key);
      else lookup.set(key, value);
    }
    this.updateIndexes(key, old, value);
  }

  /** @internal The ledger dropped an entry. */
  entryDropped(key: string): void {
    this.selectorLookup?.delete(key);
  }

  /** @internal The ledger's batch. */
  emitOutputs(events: Event<O>[], keys: readonly string[]): void {
    this.emit(events, keys);
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
    this.recomputations++;
    const ctx = this.contextFor(rec);
    let result: unknown;
    try {
      result = this.transform(ctx, input);
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
    const staged = this.staged;
    try {
      if (this.singleOutput) this.stageOne(result as O | undefined | null, rec);
      else this.stageMany(result as readonly O[] | undefined | null, rec);
    } catch (e) {
      staged.clear();
      if (stale) this.retryLater(rec, deps);
      else this.fail(rec, deps, e);
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

  /** Stages the result of a single-output transform. */
  private stageOne(o: O | undefined | null, rec: KeyEntry<O>): void {
    if (o === undefined || o === null) return;
    // Most outputs are keyed like their input: that key string is then shared, and no new one is built.
    // Named like the input, they are known to be without reading the key (see sameObjectName).
    const keyedLikeInput = (this.keysFollowNames && sameObjectName(o, rec.input)) || this.hasKey(o, rec.key);
    const visible = keyedLikeInput && rec.owner === rec ? rec.value : undefined;
    if (visible === undefined) {
      this.staged.one(keyedLikeInput ? rec.key : this.keyOf(o), freezeOutput(o));
    } else if (this.ledger.same(visible, o, rec.key)) {
      // The rerun produced what is visible: the visible object stays, and the new one is neither frozen nor
      // kept, so an update that changes no output (most updates, in a controller) leaves nothing behind.
      this.staged.one(rec.key, visible);
    } else {
      // Compared here, inside the run, so that only a value that will be handed out is frozen (a freeze
      // that throws is still this run's failure); the ledger need not compare it again.
      this.staged.one(rec.key, freezeOutput(o));
      this.staged.differs = true;
    }
  }

  /** Stages a many-output transform's result; two outputs with one key: the last wins (reported). */
  private stageMany(result: readonly O[] | undefined | null, rec: KeyEntry<O>): void {
    if (Array.isArray(result) && result.length === 1 && result[0] !== undefined && result[0] !== null) {
      this.stageOne(result[0], rec);
      return;
    }
    const m = keyOutputs(result, this.keyOf, (o, k) =>
      this.reportError(
        new TransformError(this.name, rec.key, new KeyError(this.name, o, `output key ${JSON.stringify(k)} returned twice by one transform run; the last one wins`)),
      ),
    );
    if (m === undefined) return;
    if (m.size === 1) for (const [k, v] of m) this.staged.one(k, v);
    else this.staged.many = m;
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
    this.parentKeys.reset();
    this.parentEvents.reset();
    this.depSources.reset();
    this.depEvents.reset();
    this.depKeys.reset();
    this.ledger.settleChanged();
    this.retry = [];
  }

  /** @internal Dependency state, for white-box tests. */
  dependencyIndex(): DependencyIndex<KeyEntry<O>> {
    return this.deps;
  }

  override dump(): CollectionDump {
    const inputs: Record<string, InputDump> = {};
    for (const [k, r] of this.entries) {
      if (!r.isInput) continue;
      const d: InputDump = {};
      if (r.hasOutputs()) d.outputs = r.outputKeys().sort();
      if (r.deps !== undefined) d.dependencies = depArray(r.deps).map((x) => x.source.name).sort();
      if (r.error !== undefined) (d as InputDump & { error?: string }).error = r.error;
      inputs[k] = d;
    }
    const outputs: Record<string, O> = {};
    for (const [k, e] of this.entries) if (e.value !== undefined) outputs[k] = e.value;
    return { outputs, inputCollection: this.parent.name, inputs, synced: this.hasSynced() };
  }

  /** Strict mode: after a commit no entry may still be marked queued (a later flush would skip it, and lose its change). */
  private queuedLeft(): string | undefined {
    for (const e of this.entries.values()) if (e.queued) return `input ${JSON.stringify(e.key)} is still marked queued after its flush`;
    return undefined;
  }

  override checkInvariants(): void {
    super.checkInvariants();
    const bad =
      outputLedgerInconsistency(this.parent, this.entries, this.ledger.visibleCount, this.eq) ??
      this.deps.inconsistency() ??
      this.queuedLeft() ??
      (this.fetchesParent !== this.deps.uses(this.parent.uid) ? `fetchesParent is ${this.fetchesParent}, but the dependency index says otherwise` : undefined);
    if (bad !== undefined) throw new InvariantError(`collection ${JSON.stringify(this.name)}: ${bad}`);
  }
}

/**
 * The ledger's view of its collection. Methods on a prototype, not closures made per collection: a closure
 * is a new call target for every graph, and V8 throws away optimized code that inlined one once its graph is
 * collected (a graph built, dropped and built again then ran unoptimized after every gc).
 */
class LedgerHostOf<I, O> implements LedgerHost<O> {
  readonly name: string;

  constructor(
    private readonly c: DerivedCollection<I, O>,
    /** The collection's equality: a shared function unless the user gave one. */
    readonly eq: (a: O, b: O) => boolean,
  ) {
    this.name = c.name;
  }

  visibleChanged(key: string, old: O | undefined, value: O | undefined): void {
    this.c.outputChanged(key, old, value);
  }

  entryDropped(key: string): void {
    this.c.entryDropped(key);
  }

  emitBatch(events: Event<O>[], keys: readonly string[]): void {
    this.c.emitOutputs(events, keys);
  }

  reportError(err: TransformError): void {
    this.c.reportError(err);
  }
}
