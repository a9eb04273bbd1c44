// The derived-collection engine behind newCollection, newManyCollection, newSingleton and newManyFromNothing.
//
// Per transaction it gathers the affected input keys (from its parent's batch and, through the dependency
// index, from the batches of collections its transforms fetched), reruns exactly those transforms against
// the committed state of everything upstream, diffs each input's outputs, and emits one batch.
import type { Event } from '../core/event.js';
import { latest } from '../core/event.js';
import { KeyError, TransformError, UsageError } from '../core/errors.js';
import { freezeOutput } from '../core/freeze.js';
import { InvariantError } from '../core/strict.js';
import { isPropagating, schedule, scheduleSync } from '../core/transaction.js';
import type { CollectionDump, CollectionOptions, HandlerContext, InputDump } from '../core/types.js';
import type { InternalCollection } from '../core/internal.js';
import { DependencyIndex } from '../fetch/dependencyIndex.js';
import type { Dependency } from '../fetch/dependency.js';
import { TransformContext } from '../fetch/context.js';
import { CollectionNode, wouldCycle } from './node.js';
import { SingleOutput } from './singleOutput.js';
import { keyOutputs, NO_OUTPUTS } from './transformOutputs.js';
import { outputLedgerInconsistency } from './outputLedgerInvariants.js';
import { clearMap } from '../core/clearMap.js';

/** @internal A transform normalised to "zero or more outputs". */
export type ManyTransform<I, O> = (ctx: HandlerContext, input: I) => readonly O[] | undefined | null;


/** @internal */
export class DerivedCollection<I, O> extends CollectionNode<O> {
  /** Each input's own outputs, including outputs another input owns (shadowed). */
  private readonly mappings = new Map<string, ReadonlyMap<string, O>>();
  /** For every output key, the inputs producing it in order of first production; the first one owns it. */
  private readonly producers = new Map<string, string[]>();
  private readonly deps: DependencyIndex;
  private parentInbox: Event<I>[] = [];
  private depInbox = new Map<number, Event<unknown>[]>();
  /** The last error of each input whose transform is failing (for the debug dump). */
  private readonly failing = new Map<string, string>();
  /**
   * For inputs whose last run failed or discarded its result: the dependencies of their last good run.
   * Such a run depends on those plus its own reads; keeping the base apart stops repeated failures from
   * piling up dependency records without bound.
   */
  private readonly goodDeps = new Map<string, readonly Dependency[]>();
  /**
   * Output keys changed since the last emitted batch, with their value before the first change. The batch
   * is the difference between that and the state now: one event per key however often the key changed
   * while the transaction ran (a key handed from one input to another is an update, never delete + add).
   */
  private readonly changed = new Map<string, O | undefined>();
  /**
   * Changed keys written more than once this transaction. A key written once was written only after
   * `same(old, new)` said they differ (or as an add or delete), so the batch need not compare it again.
   */
  private readonly rewritten = new Set<string>();
  /** Inputs whose run was abandoned because it read a collection that had not committed yet (rerun next flush). */
  private retry = new Set<string>();
  /** The rank this collection had when the running flush started (Infinity outside a flush). */
  private flushRank = Infinity;
  /** Output keys that a second input started producing in this flush; reported once the flush is over. */
  private conflicts: Array<{ readonly key: string; readonly input: string; readonly value: O }> = [];
  /** Transform runs so far (metrics, benchmarks). */
  recomputations = 0;

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
    this.deps = new DependencyIndex({
      // A transform may fetch its own parent: that edge exists already and must outlive the last fetch.
      firstUse: (src) => {
        if (src !== (parent as InternalCollection<unknown>)) src.addDependent(this);
      },
      lastUse: (src) => {
        if (src !== (parent as InternalCollection<unknown>)) src.removeDependent(this);
      },
      matchFailed: (inputKey, e) => this.reportError(new TransformError(this.name, this.keyedInputs ? inputKey : undefined, e, 'fetch filter threw')),
    });
    parent.addDependent(this);
    // Live from construction: compute everything the parent holds now. Nobody is registered yet, so the
    // batch goes nowhere; if a transaction is open, later batches from the parent recompute idempotently.
    for (const input of parent.values()) this.recompute(parent.keyOf(input));
    this.changed.clear();
    this.rewritten.clear();
    this.reportConflicts();
    this.start(opts);
    this.evaluateSync();
  }

  override receive(from: InternalCollection<unknown>, events: readonly Event<unknown>[]): void {
    if (this.disposed) return;
    if (from === (this.parent as InternalCollection<unknown>)) {
      for (const e of events) this.parentInbox.push(e as Event<I>);
    }
    // The parent's batch also goes through the dependency index when some transform fetched the parent.
    if (from !== (this.parent as InternalCollection<unknown>) || this.deps.uses(from.uid)) {
      const box = this.depInbox.get(from.uid);
      if (box === undefined) this.depInbox.set(from.uid, events.slice());
      else for (const e of events) box.push(e);
    }
    schedule(this);
  }

  flush(): void {
    const affected = new Set<string>();
    const fromParent = this.parentInbox;
    this.parentInbox = [];
    for (const e of fromParent) affected.add(this.parent.keyOf(latest(e)));
    if (this.depInbox.size > 0) {
      const fromDeps = this.depInbox;
      this.depInbox = new Map();
      for (const [uid, events] of fromDeps) this.deps.collectAffected(uid, events, affected);
    }
    if (this.retry.size > 0) {
      for (const k of this.retry) affected.add(k);
      this.retry = new Set();
    }
    if (this.disposed) return;
    const rank = this.rank;
    this.flushRank = rank;
    for (const key of affected) this.recompute(key);
    this.flushRank = Infinity;
    this.reportConflicts();
    if (this.rank !== rank || this.retry.size > 0) {
      // A transform started fetching a collection ranked at or above this one, which may not have committed
      // yet in this transaction: its run was abandoned (see StaleRead) and this collection now ranks above
      // that one. Hold the batch and flush again at the new rank, after it: the abandoned inputs rerun on
      // committed state, and downstream sees one batch per transaction.
      schedule(this);
      return;
    }
    this.emitChanged();
  }

  /** Emits the difference between each changed key's value before the transaction and now. */
  private emitChanged(): void {
    if (this.changed.size === 0) return;
    const out: Event<O>[] = [];
    for (const [k, old] of this.changed) {
      const cur = this.state.get(k);
      if (old === undefined) {
        if (cur !== undefined) out.push({ type: 'add', new: cur });
      } else if (cur === undefined) {
        out.push({ type: 'delete', old });
      } else if (!this.rewritten.has(k) || !this.same(old, cur, k)) {
        out.push({ type: 'update', old, new: cur });
      }
    }
    clearMap(this.changed);
    if (this.rewritten.size > 0) this.rewritten.clear();
    this.emit(out);
  }

  /** Writes an output key, remembering its value before the first write of this transaction. */
  private put(key: string, value: O | undefined): void {
    if (!this.changed.has(key)) this.changed.set(key, this.state.get(key));
    else this.rewritten.add(key);
    this.setState(key, value);
  }

  /** `equals` for outputs; a user `equals` that throws counts as "different" and is reported. */
  private same(a: O, b: O, key: string): boolean {
    if (a === b) return true;
    try {
      return this.eq(a, b);
    } catch (e) {
      this.reportError(new TransformError(this.name, undefined, e, `equals threw comparing output ${JSON.stringify(key)}`));
      return false;
    }
  }

  /** Reports the output keys still claimed by more than one input once the flush is over. */
  private reportConflicts(): void {
    if (this.conflicts.length === 0) return;
    const found = this.conflicts;
    this.conflicts = [];
    for (const c of found) {
      const owners = this.producers.get(c.key);
      // Resolved within the transaction (the owner let the key go, or this input stopped producing it).
      if (owners === undefined || owners[0] === c.input || !owners.includes(c.input)) continue;
      this.reportError(
        new TransformError(
          this.name,
          c.input,
          new KeyError(this.name, c.value, `output key ${JSON.stringify(c.key)} is already produced by input ${JSON.stringify(owners[0])}; that input keeps it`),
        ),
      );
    }
  }

  protected upstreamReady(): boolean {
    if (!this.parent.hasSynced()) return false;
    for (const src of this.deps.sources()) if (!src.hasSynced()) return false;
    return true;
  }

  /**
   * Fetch calls this before recording a dependency on a collection: reading one downstream of this one is a
   * cycle (throws); reading one ranked at or above this one while a transaction propagates may read state it
   * has not committed yet (returns true: the run is abandoned and retried at a higher rank).
   */
  private readonly checkSource = (source: InternalCollection<unknown>): boolean => {
    if (source === (this.parent as InternalCollection<unknown>)) return false;
    if (!this.deps.uses(source.uid) && wouldCycle(this, source)) {
      throw new UsageError(`cycle: ${JSON.stringify(this.name)} cannot fetch ${JSON.stringify(source.name)}, which depends on it`);
    }
    // Compared with the rank this flush started at: another input may already have linked the source in
    // this flush (raising this rank), and the source still has not committed.
    return isPropagating() && source.rank >= this.flushRank;
  };

  /** Reruns one input against the current state and records the changed outputs. */
  private recompute(inputKey: string): void {
    const input = this.parent.getKey(inputKey);
    if (input === undefined) {
      this.removeInput(inputKey);
      return;
    }
    this.recomputations++;
    const ctx = new TransformContext(this.uid, this.name, this.keyedInputs ? inputKey : undefined, this.checkSource);
    let outputs: ReadonlyMap<string, O>;
    try {
      const result = this.transform(ctx, input);
      outputs = this.singleOutput ? this.keyedOne(result as unknown as O | undefined | null) : this.keyed(result, inputKey);
    } catch (e) {
      ctx.closed = true;
      if (ctx.stale) this.retryLater(inputKey, ctx);
      else this.fail(inputKey, ctx, e);
      return;
    }
    ctx.closed = true;
    // Also when the transform caught the StaleRead itself: its result rests on a read that did not happen.
    if (ctx.stale) {
      this.retryLater(inputKey, ctx);
      return;
    }
    this.failing.delete(inputKey);
    if (ctx.discarded) {
      // Keep the last good result; a first run with a non-empty result still counts (it sets a default).
      // What this run read is added to what the kept result read, so a change to either recomputes.
      if (this.mappings.has(inputKey) || outputs.size === 0) {
        this.keepLastGood(inputKey, ctx);
        return;
      }
    }
    this.goodDeps.delete(inputKey);
    this.setDeps(inputKey, ctx.deps);
    this.applyOutputs(inputKey, outputs);
  }

  private fail(inputKey: string, ctx: TransformContext, e: unknown): void {
    const err = new TransformError(this.name, this.keyedInputs ? inputKey : undefined, e);
    this.failing.set(inputKey, err.message);
    // The failed run's reads join the last good run's, so fixing whatever broke it recomputes the input.
    this.keepLastGood(inputKey, ctx);
    this.reportError(err);
  }

  /** Abandons a run that read an uncommitted collection: link what it read (raising this rank), rerun later. */
  private retryLater(inputKey: string, ctx: TransformContext): void {
    this.keepLastGood(inputKey, ctx);
    this.retry.add(inputKey);
  }

  /** A run whose result is not used depends on the last good run's reads plus its own (never accumulated). */
  private keepLastGood(inputKey: string, ctx: TransformContext): void {
    let base = this.goodDeps.get(inputKey);
    if (base === undefined) {
      base = this.deps.depsOf(inputKey);
      this.goodDeps.set(inputKey, base);
    }
    this.setDeps(inputKey, union(base, ctx.deps));
  }

  /** Keys the result of a single-output transform. */
  private keyedOne(o: O | undefined | null): ReadonlyMap<string, O> {
    return o === undefined || o === null ? NO_OUTPUTS : new SingleOutput(this.keyOf(o), freezeOutput(o));
  }

  /** Keys a transform's result; two outputs with one key: the last wins (reported). */
  private keyed(result: readonly O[] | undefined | null, inputKey: string): ReadonlyMap<string, O> {
    return keyOutputs(result, this.keyOf, (o, k) =>
      this.reportError(
        new TransformError(this.name, inputKey, new KeyError(this.name, o, `output key ${JSON.stringify(k)} returned twice by one transform run; the last one wins`)),
      ),
    );
  }

  private setDeps(inputKey: string, deps: readonly Dependency[]): void {
    const before = this.hasSynced();
    this.deps.set(inputKey, deps);
    // A new, unsynced dependency must hold back our own sync; re-check once the dust settles.
    if (!before) scheduleSync(this);
  }

  private removeInput(inputKey: string): void {
    if (this.mappings.has(inputKey)) this.applyOutputs(inputKey, NO_OUTPUTS);
    this.mappings.delete(inputKey);
    this.failing.delete(inputKey);
    this.goodDeps.delete(inputKey);
    this.deps.delete(inputKey);
  }

  /** Diffs one input's new outputs against its old ones and against what other inputs produce. */
  private applyOutputs(inputKey: string, next: ReadonlyMap<string, O>): void {
    const prev = this.mappings.get(inputKey) ?? NO_OUTPUTS;
    this.mappings.set(inputKey, next);
    // SingleOutput is read through its fields: the iterator protocol would allocate on this hot path.
    if (next instanceof SingleOutput) this.produce(inputKey, next.onlyKey(), next.onlyValue(), prev);
    else for (const [k, v] of next) this.produce(inputKey, k, v, prev);
    if (prev instanceof SingleOutput) {
      const k = prev.onlyKey();
      if (!next.has(k)) this.release(inputKey, k);
    } else {
      for (const k of prev.keys()) if (!next.has(k)) this.release(inputKey, k);
    }
  }

  /** `inputKey` produces `v` under `k`: it becomes (or stays) the owner, or queues behind the owner. */
  private produce(inputKey: string, k: string, v: O, prev: ReadonlyMap<string, O>): void {
    const owners = this.producers.get(k);
    if (owners === undefined) {
      this.producers.set(k, [inputKey]);
      this.put(k, v);
    } else if (owners[0] === inputKey) {
      const cur = this.state.get(k)!;
      if (!this.same(cur, v, k)) this.put(k, v);
    } else if (!prev.has(k)) {
      owners.push(inputKey);
      this.conflicts.push({ key: k, input: inputKey, value: v });
    }
  }

  /** `inputKey` no longer produces `k`: the next producer in line takes it over, or it goes. */
  private release(inputKey: string, k: string): void {
    const owners = this.producers.get(k)!;
    const wasOwner = owners[0] === inputKey;
    owners.splice(owners.indexOf(inputKey), 1);
    if (!wasOwner) return;
    const cur = this.state.get(k)!;
    if (owners.length === 0) {
      this.producers.delete(k);
      this.put(k, undefined);
    } else {
      const v = this.mappings.get(owners[0]!)!.get(k)!;
      if (!this.same(cur, v, k)) this.put(k, v);
    }
  }

  protected onDispose(): void {
    this.parent.removeDependent(this);
    for (const src of [...this.deps.sources()]) src.removeDependent(this);
    this.parentInbox = [];
    this.depInbox.clear();
    this.changed.clear();
    this.rewritten.clear();
    this.retry.clear();
  }

  /** @internal Dependency state, for white-box tests. */
  dependencyIndex(): DependencyIndex {
    return this.deps;
  }

  override dump(): CollectionDump {
    const inputs: Record<string, InputDump> = {};
    for (const [k, m] of this.mappings) {
      const d: InputDump = {};
      if (m.size > 0) d.outputs = [...m.keys()].sort();
      const deps = this.deps.depsOf(k);
      if (deps.length > 0) d.dependencies = deps.map((x) => x.source.name).sort();
      const err = this.failing.get(k);
      if (err !== undefined) (d as InputDump & { error?: string }).error = err;
      inputs[k] = d;
    }
    return { outputs: Object.fromEntries(this.state), inputCollection: this.parent.name, inputs, synced: this.hasSynced() };
  }

  override checkInvariants(): void {
    const bad = outputLedgerInconsistency(this.parent, this.mappings, this.producers, this.state, this.eq) ?? this.deps.inconsistency();
    if (bad !== undefined) throw new InvariantError(`collection ${JSON.stringify(this.name)}: ${bad}`);
  }

}

function union(a: readonly Dependency[], b: readonly Dependency[]): readonly Dependency[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return [...a, ...b];
}
