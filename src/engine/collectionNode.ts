// The base of every collection: identity, state, dependents, handlers, sync, errors, indexes, disposal.
import { Observable, observable, type Subscribable } from 'rxjs';
import type { Event } from '../core/event.js';
import { COLLECTION_BRAND, storedKey } from '../core/keyOf.js';
import { equals as defaultEquals } from '../core/equals.js';
import { TransformError, UsageError } from '../core/errors.js';
import { log } from '../core/logger.js';
import { InvariantError, isStrictMode } from '../core/strict.js';
import type { Labels } from '../core/labels.js';
import type {
  BatchHandler,
  CollectionDump,
  CollectionOptions,
  DebugRegistry,
  DebugTarget,
  EventHandler,
  Registration,
} from '../core/types.js';
import { makeKeyFn, makeKeyTest, safeKey } from './keyFunction.js';
import { SyncState } from './syncState.js';
import { ErrorReports } from './errorReports.js';
import { onAbort } from './onAbort.js';
import { HandlerSet, type HandlerOwner } from './handlerSet.js';
import { afterCommitted, deliverAfterCommit, scheduleSync, type BatchReceiver, type TxNode } from './transaction.js';
import type { Dependent, IndexHandle, InternalCollection } from './internalCollection.js';
import { allocateUid } from './uid.js';
import { trackLive, type LiveCollection } from './liveCollections.js';
import { raiseRank, wouldCycle } from './graph.js';
import { perEvent } from './perEvent.js';
import { KeyStreams } from './keyStreams.js';
import { CollectionCounters, countByType, countEventTypes } from './counters.js';
import { batchInconsistency } from './batchInvariants.js';
import { StateIndexes } from './indexes/stateIndexes.js';
import { SELECTOR_LOOKUP_MIN_SIZE, SelectorLookup } from './indexes/selectorLookup.js';
import type { CandidateList } from './indexes/candidateList.js';

/**
 * @internal The machinery every collection shares. Subclasses decide what `flush` does with the inbox,
 * when their upstream is ready, and what they hold on to upstream (released in `onDispose`).
 *
 * A wide class on purpose: it is at once the public `Collection`, the engine's `InternalCollection`, a
 * transaction node (`TxNode`) and a reader of other collections (`Dependent`), and those interfaces are
 * most of its members. Everything with a life of its own is kept elsewhere and only held here: handlers
 * (`HandlerSet`), sync (`SyncState`), indexes and the selector lookup (`StateIndexes`), counters, ranks and
 * cycles (`graph.ts`), the strict-mode batch check (`batchInvariants.ts`).
 */
export abstract class CollectionNode<T> implements InternalCollection<T>, TxNode, Dependent, DebugTarget, HandlerOwner {
  readonly [COLLECTION_BRAND] = true as const;
  readonly uid = allocateUid();
  readonly name: string;
  rank = 0;
  /**
   * Counts changes to the visible state: a fetch result remembered at one count is still what the same
   * filters would find while the count stays (see `listMatching`).
   */
  stateVersion = 0;
  queued = false;
  syncQueued = false;
  disposed = false;
  readonly counters = new CollectionCounters();
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
  private readonly errorReports = new ErrorReports(this.counters);
  /** Secondary indexes and the selector lookup, built on first use and kept in step by `setState`. */
  protected readonly indexes = new StateIndexes<T>();
  private readonly meta: Record<string, unknown>;
  private readonly debugRegistry: DebugRegistry | undefined;
  readonly events$: Observable<readonly Event<T>[]>;
  readonly errors$: Observable<TransformError>;

  constructor(opts: CollectionOptions<never> | undefined, defaultName: string) {
    this.name = opts?.name ?? `${defaultName}[${this.uid}]`;
    this.keyOf = makeKeyFn(() => this.name, opts?.key);
    this.defaultKeyed = opts?.key === undefined;
    this.hasKey = makeKeyTest(this.keyOf, opts?.key);
    this.eq = (opts?.equals as ((a: T, b: T) => boolean) | undefined) ?? defaultEquals;
    this.meta = opts?.metadata ?? {};
    this.debugRegistry = opts?.debugger;
    this.errors$ = this.errorReports.errors$;
    this.events$ = new Observable<readonly Event<T>[]>((subscriber) => {
      const reg = this.registerBatch((batch) => subscriber.next(batch), true);
      return () => reg.unregister();
    });
  }

  /** Subclasses call this last in their constructor: joins the debugger and honours `stop`. */
  protected start(opts: CollectionOptions<never> | undefined): void {
    this.debugRegistry?.register(this);
    const stop = opts?.stop;
    this.untrack = trackLive(this as LiveCollection, stop);
    if (stop !== undefined) this.forgetStop = onAbort(stop, () => this.dispose());
  }

  /** Detaches this collection from its `stop` signal once disposed. */
  private forgetStop: (() => void) | undefined;
  /** Removes this collection from the live set that metrics and the debug server read. */
  private untrack: (() => void) | undefined;

  /**
   * @internal `key`, as `keyOf` gave it, in the form the state keeps (see `storedKey`). The default key function
   * already returns a namespaced key flat, so only a key option's keys are flattened here (a `resourceName()` or a
   * string is kept as given: flattening it would be a call per write for a rare kind of key).
   */
  protected keptKey(key: string): string {
    return this.defaultKeyed ? key : storedKey(key);
  }

  // ---- reading -------------------------------------------------------------------------------------

  getKey(key: string): T | undefined {
    return this.state.get(key);
  }

  get$(key: string): Observable<T | undefined> {
    if (typeof key !== 'string') throw new UsageError(`get$ on ${JSON.stringify(this.name)} needs a string key, got ${typeof key}`);
    return (this.keyStreams ??= new KeyStreams<T>(this, this.eq)).get$(key);
  }

  private keyStreams: KeyStreams<T> | undefined;

  /** `from(collection)` is `events$` (set on the prototype under rxjs's interop key, below the class). */
  declare readonly [Symbol.observable]: () => Subscribable<readonly Event<T>[]>;

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
    let lookup = this.indexes.lookup;
    if (lookup === undefined) {
      if (this.size < SELECTOR_LOOKUP_MIN_SIZE) return false;
      lookup = this.indexes.lookup = this.buildSelectorLookup();
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

  /** A handler or a dependent was added: it may read batches that nobody read before (see `SourceNode`). */
  batchReadersAdded(): void {}

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
    log().debug({ collection: this.name, objects: this.state.size }, `collection ${JSON.stringify(this.name)} synced`);
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
    this.batchReadersAdded();
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
    if (isStrictMode()) {
      const bad = batchInconsistency(this.name, this.keyOf, this.eq, events, keys, repeatsKeys, this.emitsEqualUpdates);
      if (bad !== undefined) throw new InvariantError(bad);
    }
    const counters = this.counters;
    counters.batches++;
    counters.events += events.length;
    if (countEventTypes) countByType(counters, events as readonly Event<unknown>[]);
    const initial = !this.syncState.hasSynced();
    const dependents = this.dependents;
    for (let i = 0; i < dependents.length; i++)
      dependents[i]!.receive(this as InternalCollection<unknown>, events as readonly Event<unknown>[], keys);
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

  /** @internal No handler and no dependent would read a batch (each takes the writes as they happen, see `ignoresBatchesOf`). */
  protected batchUnread(): boolean {
    if (this.handlers.size > 0) return false;
    const dependents = this.dependents;
    for (let i = 0; i < dependents.length; i++)
      if (dependents[i]!.ignoresBatchesOf?.(this as InternalCollection<unknown>) !== true) return false;
    return true;
  }

  /** Writes one key of the state and keeps the indexes and the selector lookup in step. */
  protected setState(key: string, value: T | undefined): void {
    this.stateVersion++;
    const state = this.state;
    if (!this.indexes.active) {
      if (value === undefined) state.delete(key);
      else state.set(key, value);
      return;
    }
    const old = state.get(key);
    if (value === undefined) state.delete(key);
    else state.set(key, value);
    this.indexes.written(key, old, value);
  }

  indexFor(name: string, extract: (o: T) => readonly string[]): IndexHandle<T> {
    return this.indexes.indexFor(name, this, extract, (e, o) =>
      this.reportError(new TransformError(this.name, safeKey(this, o), e, `index ${JSON.stringify(name)} extract threw`)),
    );
  }

  // ---- errors --------------------------------------------------------------------------------------

  /** Counts, logs (once per distinct message) and emits an error on `errors$` after the commit. */
  reportError(err: TransformError): void {
    this.errorReports.report(err);
  }

  reportHandlerError(error: unknown): void {
    this.reportError(new TransformError(this.name, undefined, error, 'handler threw'));
  }

  // ---- debug and strict mode -----------------------------------------------------------------------

  /** The last errors reported, oldest first (for the debug server's graph page). */
  recentErrors(): readonly TransformError[] {
    return this.errorReports.last();
  }

  queuedHandlerBatches(): number {
    return this.handlers.queuedBatches();
  }

  dump(): CollectionDump {
    return { outputs: Object.fromEntries(this.state), synced: this.hasSynced() };
  }

  /** Strict mode, after each transaction that touched this collection: its lookups mirror what they index. */
  checkInvariants(): void {
    const bad = this.indexes.inconsistency(this.visibleState());
    if (bad !== undefined) throw new InvariantError(`collection ${JSON.stringify(this.name)}: ${bad}`);
  }

  /** Strict mode: every key in `values()` order with its visible value (undefined: a kept place, see SelectorLookup). */
  protected visibleState(): ReadonlyMap<string, T | undefined> {
    return this.state;
  }

  // ---- disposal ------------------------------------------------------------------------------------

  /** Disposes the collection: releases everything upstream and leaves the debugger; the state stays readable. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.forgetStop?.();
    this.untrack?.();
    this.onDispose();
    this.debugRegistry?.unregister(this);
    this.syncState.abandon();
  }

  protected abstract onDispose(): void;
}

// rxjs reads interop Observables under `Symbol.observable` where something polyfilled it, else under
// '@@observable'; its `observable` constant is whichever it reads.
Object.defineProperty(CollectionNode.prototype, observable, {
  value(this: CollectionNode<unknown>) {
    return this.events$;
  },
});
