// The base of every collection: identity, state, dependents, handlers, sync, errors, indexes, disposal.
import { Observable, Subject } from 'rxjs';
import type { Event } from '../core/event.js';
import { COLLECTION_BRAND, makeKeyFn, makeKeyTest } from '../core/keyOf.js';
import { equals as defaultEquals } from '../core/equals.js';
import { TransformError, UsageError } from '../core/errors.js';
import { logErrorOnce } from '../core/logger.js';
import { SyncState } from './syncState.js';
import { onAbort } from './onAbort.js';
import { InvariantError, isStrictMode } from '../core/strict.js';
import { HandlerSet, type HandlerOwner } from './handlerSet.js';
import { afterCommitted, deliverAfterCommit, scheduleSync, type BatchReceiver, type TxNode } from './transaction.js';
import type { Dependent, IndexHandle, InternalCollection } from './internalCollection.js';
import type {
  BatchHandler,
  CollectionDump,
  CollectionOptions,
  DebugRegistry,
  DebugTarget,
  EventHandler,
  Registration,
} from '../core/types.js';
import { IndexState } from './indexes/indexState.js';
import { SELECTOR_LOOKUP_MIN_SIZE, SelectorLookup } from './indexes/selectorLookup.js';
import type { Labels } from '../core/labels.js';
import type { CandidateList } from './indexes/candidateList.js';

let nextUid = 1;

/** @internal A fresh process-unique uid (collections and other graph members share the sequence). */
export function allocateUid(): number {
  return nextUid++;
}

/**
 * @internal The machinery every collection shares. Subclasses decide what `flush` does with the inbox,
 * when their upstream is ready, and what they hold on to upstream (released in `onDispose`).
 */
export abstract class CollectionNode<T>
  implements InternalCollection<T>, TxNode, Dependent, DebugTarget, HandlerOwner
{
  readonly [COLLECTION_BRAND] = true as const;
  readonly uid = allocateUid();
  readonly name: string;
  rank = 0;
  queued = false;
  syncQueued = false;
  disposed = false;
  /** Transform, handler and source failures seen so far (for the debug dump and metrics). */
  errorCount = 0;
  /** Batches and events committed so far (metrics). */
  batchCount = 0;
  eventCount = 0;
  readonly keyOf: (o: unknown) => string;
  readonly defaultKeyed: boolean;
  /** `keyOf(o) === key`, without building the key when the default key function is in use. */
  protected readonly hasKey: (o: unknown, key: string) => boolean;
  protected readonly eq: (a: T, b: T) => boolean;
  protected readonly state = new Map<string, T>();
  protected readonly syncState = new SyncState();
  protected readonly handlers: HandlerSet<T> = new HandlerSet<T>(this);
  /**
   * Dependents, in an array that `emit` walks by index (no iterator per batch); there are few, and they are
   * added and removed rarely. Nothing adds or removes one while a batch is handed over (`receive` only queues).
   */
  private readonly dependents: Dependent[] = [];
  private readonly errorSubject = new Subject<TransformError>();
  private indexes: IndexState<T>[] = [];
  private readonly meta: Record<string, unknown>;
  private readonly debugRegistry: DebugRegistry | undefined;
  readonly events$: Observable<readonly Event<T>[]>;
  readonly errors$: Observable<TransformError>;

  constructor(opts: CollectionOptions | undefined, defaultName: string) {
    this.name = opts?.name ?? `${defaultName}[${this.uid}]`;
    this.keyOf = makeKeyFn(() => this.name, opts?.key);
    this.defaultKeyed = opts?.key === undefined;
    this.hasKey = makeKeyTest(this.keyOf, opts?.key);
    this.eq = (opts?.equals as ((a: T, b: T) => boolean) | undefined) ?? defaultEquals;
    this.meta = opts?.metadata ?? {};
    this.debugRegistry = opts?.debugger;
    this.errors$ = this.errorSubject.asObservable();
    this.events$ = new Observable<readonly Event<T>[]>((subscriber) => {
      const reg = this.registerBatch((batch) => subscriber.next(batch), true);
      return () => reg.unregister();
    });
  }

  /** Subclasses call this last in their constructor: joins the debugger and honours `stop`. */
  protected start(opts: CollectionOptions | undefined): void {
    this.debugRegistry?.register(this);
    const stop = opts?.stop;
    if (stop !== undefined) this.forgetStop = onAbort(stop, () => this.dispose());
  }

  /** Detaches this collection from its `stop` signal once disposed. */
  private forgetStop: (() => void) | undefined;

  // ---- reading -------------------------------------------------------------------------------------

  getKey(key: string): T | undefined {
    return this.state.get(key);
  }

  list(): T[] {
    return Array.from(this.state.values());
  }

  values(): IterableIterator<T> {
    return this.state.values();
  }

  forEachKeyed(fn: (value: T, key: string) => void): void {
    this.state.forEach(fn);
  }

  get size(): number {
    return this.state.size;
  }

  selecting(labels: Labels, withEmpty: boolean, out: CandidateList<T>): boolean {
    let lookup = this.selectorLookup;
    if (lookup === undefined) {
      if (this.size < SELECTOR_LOOKUP_MIN_SIZE) return false;
      lookup = this.selectorLookup = this.buildSelectorLookup();
    }
    lookup.candidates(labels, withEmpty, out);
    return true;
  }

  /** A selector lookup of the visible state, in `values()` order. */
  protected buildSelectorLookup(): SelectorLookup<T> {
    const lookup = new SelectorLookup<T>();
    for (const [k, v] of this.state) lookup.set(k, v);
    return lookup;
  }

  /**
   * The selector lookup, from the first fetch by selector that found 8 objects or more; kept in step by
   * `setState` (collections that hold their state elsewhere keep it in step themselves). Its order is the
   * state's (a new key goes last, an update keeps its place), which is `values()` order.
   */
  protected selectorLookup: SelectorLookup<T> | undefined;

  metadata(): Record<string, unknown> {
    return this.meta;
  }

  // ---- handlers ------------------------------------------------------------------------------------

  registerBatch(handler: BatchHandler<T>, runExistingState = true): Registration {
    if (typeof handler !== 'function') throw new UsageError(`registerBatch on ${JSON.stringify(this.name)} needs a function`);
    return this.handlers.add(handler, runExistingState ? this.replay() : undefined);
  }

  register(handler: EventHandler<T>): Registration {
    if (typeof handler !== 'function') throw new UsageError(`register on ${JSON.stringify(this.name)} needs a function`);
    return this.handlers.add(perEvent(handler), this.replay(false), false);
  }

  /**
   * The committed state as `add` events (what a new handler sees first), frozen unless only rxkrt's
   * per-event adapter will read it (which then always reads unfrozen arrays: one kind of array at its loop).
   */
  protected replay(frozen = true): readonly Event<T>[] {
    const out: Event<T>[] = [];
    for (const v of this.committedValues()) out.push({ type: 'add', new: v });
    return frozen ? Object.freeze(out) : out;
  }

  /** Values as of the last commit; sources override this while a transaction holds uncommitted writes. */
  protected committedValues(): Iterable<T> {
    return this.values();
  }

  subscriberCount(): number {
    return this.dependents.length + this.handlers.size;
  }

  // ---- sync ----------------------------------------------------------------------------------------

  hasSynced(): boolean {
    return this.syncState.hasSynced();
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.syncState.waitUntilSynced(signal);
  }

  /** Whether everything this collection reads has synced (sources: whether they were marked synced). */
  protected abstract upstreamReady(): boolean;

  evaluateSync(): void {
    if (this.disposed || this.syncState.hasSynced() || !this.upstreamReady()) return;
    this.syncState.markSynced();
    // A copy: a dependent told here may commit at once and, in doing so, start or stop reading this collection.
    for (const d of [...this.dependents]) d.upstreamSynced();
    afterCommitted(() => this.handlers.collectionSynced());
  }

  upstreamSynced(): void {
    if (!this.syncState.hasSynced()) scheduleSync(this);
  }

  // ---- the graph -----------------------------------------------------------------------------------

  addDependent(node: Dependent): void {
    if (this.dependents.includes(node)) return;
    if (wouldCycle(node, this)) {
      throw new UsageError(`cycle: ${JSON.stringify(node.name)} reads ${JSON.stringify(this.name)}, which depends on it`);
    }
    this.dependents.push(node);
    raiseRank(node, this.rank + 1);
  }

  removeDependent(node: Dependent): void {
    const i = this.dependents.indexOf(node);
    if (i >= 0) this.dependents.splice(i, 1);
  }

  dependentsForRank(): Iterable<Dependent> {
    return this.dependents;
  }

  /** Receives a batch from a collection this one reads; subclasses that read something override it. */
  receive(from: InternalCollection<unknown>, _events: readonly Event<unknown>[], _keys: readonly string[]): void {
    throw new Error(`rxkrt internal: ${this.name} received a batch from ${from.name} but reads nothing`);
  }

  abstract flush(): void;

  /**
   * Commits a batch: dependents get it now (inside the transaction), handlers after the commit. `keys[i]`
   * is the key of `events[i]`: emitters know it, and dependents would otherwise derive it again per event.
   */
  protected emit(events: Event<T>[], keys: readonly string[], repeatsKeys = false): void {
    if (events.length === 0) return;
    if (isStrictMode()) this.checkBatch(events, keys, repeatsKeys);
    this.batchCount++;
    this.eventCount += events.length;
    const initial = !this.syncState.hasSynced();
    const dependents = this.dependents;
    for (let i = 0; i < dependents.length; i++) dependents[i]!.receive(this as InternalCollection<unknown>, events as readonly Event<unknown>[], keys);
    const regs = this.handlers.snapshot();
    if (regs.length > 0) {
      // Handlers share one array: frozen, so that none can change what the next one sees. Dependents and
      // per-event adapters are rxkrt's own and only read it, and a freeze costs as much as the rest of a
      // one-event hand-over.
      if (this.handlers.exposesBatches) Object.freeze(events);
      deliverAfterCommit(regs as readonly BatchReceiver[], events as readonly Event<unknown>[], initial);
    }
  }

  /**
   * Sources may emit an update between equal values (`updateObject` always emits); nothing derived may.
   * @internal
   */
  protected readonly emitsEqualUpdates: boolean = false;

  /**
   * @internal Whether a batch must hold each key once: true unless nothing reads it but dependents that take
   * repeated keys (see `Dependent.takesRepeatedKeys`). Handlers, and every other kind of dependent, get one
   * event per key.
   */
  protected batchMustBeFolded(): boolean {
    if (this.handlers.size > 0) return true;
    const dependents = this.dependents;
    for (let i = 0; i < dependents.length; i++) if (dependents[i]!.takesRepeatedKeys !== true) return true;
    return false;
  }

  /**
   * Strict mode: every event is well formed, a key comes once (unless the emitter was allowed to repeat it),
   * and a derived collection never emits an update between equal values.
   */
  private checkBatch(events: readonly Event<T>[], keys: readonly string[], repeatsKeys: boolean): void {
    if (keys.length !== events.length) throw new InvariantError(`collection ${JSON.stringify(this.name)} emitted ${events.length} events with ${keys.length} keys`);
    const seen = new Set<string>();
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const key = keys[i]!;
      if (seen.has(key) && !repeatsKeys) throw new InvariantError(`collection ${JSON.stringify(this.name)} emitted two events for key ${JSON.stringify(key)} in one batch`);
      seen.add(key);
      for (const o of [e.old, e.new]) {
        if (o !== undefined && this.keyOf(o) !== key) {
          throw new InvariantError(`collection ${JSON.stringify(this.name)} emitted an event for ${JSON.stringify(this.keyOf(o))} under key ${JSON.stringify(key)}`);
        }
      }
      const ok = e.type === 'add' ? e.new !== undefined : e.type === 'delete' ? e.old !== undefined : e.old !== undefined && e.new !== undefined;
      if (!ok) throw new InvariantError(`collection ${JSON.stringify(this.name)} emitted a malformed ${e.type} event`);
      if (e.type === 'update' && !this.emitsEqualUpdates && this.eq(e.old!, e.new!)) {
        throw new InvariantError(`collection ${JSON.stringify(this.name)} emitted an update between equal values for key ${JSON.stringify(this.keyOf(e.new))}`);
      }
    }
  }

  /** Writes one key of the state and keeps every index in step. */
  protected setState(key: string, value: T | undefined): void {
    const indexes = this.indexes;
    if (value === undefined) this.selectorLookup?.delete(key);
    else this.selectorLookup?.set(key, value);
    if (indexes.length === 0) {
      if (value === undefined) this.state.delete(key);
      else this.state.set(key, value);
      return;
    }
    const old = this.state.get(key);
    if (value === undefined) this.state.delete(key);
    else this.state.set(key, value);
    for (const ix of indexes) ix.update(key, old, value);
  }

  /** Keeps every index in step with a key's change, for collections that hold their state elsewhere. */
  protected updateIndexes(key: string, old: T | undefined, value: T | undefined): void {
    const indexes = this.indexes;
    for (let i = 0; i < indexes.length; i++) indexes[i]!.update(key, old, value);
  }

  /**
   * The index called `name`, built on first request. The name is the index's identity (as in krt): asking
   * again, even with another extract function, returns the existing index, so code that builds collections
   * in a loop with an inline extract function shares one index instead of adding one per build.
   */
  indexFor(name: string, extract: (o: T) => readonly string[]): IndexHandle<T> {
    const existing = this.indexes.find((ix) => ix.name === name);
    if (existing !== undefined) return existing;
    const ix = new IndexState<T>(name, this, extract, (e, o) =>
      this.reportError(new TransformError(this.name, safeKey(this, o), e, `index ${JSON.stringify(name)} extract threw`)),
    );
    this.indexes = [...this.indexes, ix];
    return ix;
  }

  // ---- errors --------------------------------------------------------------------------------------

  /** Counts, logs (once per distinct message) and emits an error on `errors$` after the commit. */
  reportError(err: TransformError): void {
    this.errorCount++;
    logErrorOnce(err.message, err.error);
    afterCommitted(() => this.errorSubject.next(err));
  }

  reportHandlerError(error: unknown): void {
    this.reportError(new TransformError(this.name, undefined, error, 'handler threw'));
  }

  // ---- debug and strict mode -----------------------------------------------------------------------

  dump(): CollectionDump {
    return { outputs: Object.fromEntries(this.state), synced: this.hasSynced() };
  }

  /** Strict mode, after each transaction that touched this collection: its lookups mirror what they index. */
  checkInvariants(): void {
    const bad = this.lookupInconsistency() ?? this.indexInconsistency();
    if (bad !== undefined) throw new InvariantError(`collection ${JSON.stringify(this.name)}: ${bad}`);
  }

  /** Strict mode: what is wrong with the selector lookup as a mirror of the visible state, or undefined. */
  protected lookupInconsistency(): string | undefined {
    return this.selectorLookup?.inconsistency(this.state);
  }

  private indexInconsistency(): string | undefined {
    for (const ix of this.indexes) {
      const bad = ix.inconsistency();
      if (bad !== undefined) return bad;
    }
    return undefined;
  }

  // ---- disposal ------------------------------------------------------------------------------------

  /** Disposes the collection: releases everything upstream and leaves the debugger; the state stays readable. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.forgetStop?.();
    this.onDispose();
    this.debugRegistry?.unregister(this);
    this.syncState.abandon();
  }

  protected abstract onDispose(): void;
}

/**
 * Adapts a per-event handler to batches. Every event is one call: an event whose call throws (or rejects)
 * does not keep the rest of its batch from the handler; the failures are rethrown together once the batch
 * is done, so the registration reports them.
 */
function perEvent<T>(handler: EventHandler<T>): BatchHandler<T> {
  return (batch) => {
    let errors: unknown[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      let r: void | Promise<void>;
      try {
        r = handler(batch[i]!);
      } catch (e) {
        (errors ??= []).push(e);
        continue;
      }
      if (typeof r === 'object' && r !== null && typeof (r as Promise<void>).then === 'function') {
        return continueAfter(r, handler, batch, i + 1, errors ?? []);
      }
    }
    if (errors !== undefined) throw combined(errors);
    return undefined;
  };
}

async function continueAfter<T>(
  first: Promise<void>,
  handler: EventHandler<T>,
  batch: readonly Event<T>[],
  from: number,
  errors: unknown[],
): Promise<void> {
  try {
    await first;
  } catch (e) {
    errors.push(e);
  }
  for (let i = from; i < batch.length; i++) {
    try {
      await handler(batch[i]!);
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw combined(errors);
}

function combined(errors: unknown[]): unknown {
  return errors.length === 1 ? errors[0] : new AggregateError(errors, `${errors.length} events of one batch failed in the handler`);
}

/** Raises a node's rank (and, transitively, its dependents') so that it stays above what it reads. */
function raiseRank(node: Dependent, min: number): void {
  if (node.rank >= min) return;
  node.rank = min;
  for (const d of node.dependentsForRank()) raiseRank(d, min + 1);
}

/**
 * @internal Whether `reader` reading `source` would close a cycle (`source` already depends on `reader`).
 * Fetch checks this before recording a dependency, so a transform that fetches downstream of itself fails
 * (and is reported) instead of corrupting the graph in the middle of a transaction.
 */
export function wouldCycle(reader: Dependent, source: object): boolean {
  return source === reader || reaches(reader, source);
}

/** Whether `target` is reachable from `from` along dependent edges. */
function reaches(from: Dependent, target: object): boolean {
  const seen = new Set<Dependent>();
  const stack: Dependent[] = [from];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const d of n.dependentsForRank()) {
      if (d === target) return true;
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
    }
  }
  return false;
}

function safeKey(c: InternalCollection<unknown>, o: unknown): string | undefined {
  try {
    return c.keyOf(o);
  } catch {
    return undefined;
  }
}
