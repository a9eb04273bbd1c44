// The lean engine: the engine floor (`engineFloor.ts`) plus what rxkrt's contract obliges an engine to do on B1's
// path, written for B1 with none of rxkrt's code.
//
// The engine floor prices the model (a tracked fetch, a reverse index, frozen outputs, equal updates
// suppressed, one batch per write). It is not an engine rxkrt could be: BEHAVIOUR.md also asks for
// transactions (writes inside `batch` commit together; a write during propagation or delivery waits for the
// next transaction), propagation in rank order with a read of an uncommitted collection retried, handlers
// called only once the transaction has committed, a throwing transform keeping its input's last good output
// and a throwing handler or `equals` reported, keys checked, sync tracked through what transforms read,
// counters for the metrics, and disposal through a stop signal. This engine does each of those the plainest
// way, so that the distance from the engine floor to it is what the contract costs an engine, and the
// distance from it to rxkrt is what rxkrt's engine adds. What B1 never reaches (outputs keyed unlike their
// inputs, fetch filters other than one index key and a selector, a service change, handlers on a source, a
// source not synced from the start) is refused or left out, not built: on B1's path each costs rxkrt a
// comparison at most.
import { equals } from '../src/index.js';
import type { Service } from './fixtures.js';
import { LeanList, tx, type LeanEvent, type LeanNode } from './leanTransactions.js';
import { FloorServiceIndex, fileReader, type FloorContext, type Fetched } from './engineFloor.js';

/** A collection that reads a source: told each write as it happens, in an open transaction. */
interface LeanDependent<T> {
  receive(key: string, next: T): void;
}

/** What the lean engine counts per collection (rxkrt's metrics read the like). */
export interface LeanCounters {
  recomputations: number;
  batches: number;
  events: number;
  errors: number;
}

/** `namespace/name`, with the contract's refusal of an object that has no name. */
function leanKeyOf(collection: string, o: { metadata?: { name?: unknown; namespace?: unknown } }): string {
  const m = o.metadata;
  const name = m?.name;
  if (typeof name !== 'string' || name === '')
    throw new Error(`collection ${collection}: object without metadata.name: ${JSON.stringify(o)}`);
  const ns = m!.namespace;
  return typeof ns === 'string' && ns !== '' ? `${ns}/${name}` : name;
}

/**
 * A source collection: frozen objects by key. A write reaches its dependents at once, as a key and a value
 * (they queue the key and recompute when the transaction propagates), so it builds no event for them; it
 * takes no handlers (B1 registers none on its sources), so it builds no batch either.
 */
export class LeanSource<T extends { metadata: { name: string; namespace: string } }> {
  readonly rank: number = 0;
  readonly synced = true;
  readonly state = new Map<string, T>();
  readonly dependents: LeanDependent<T>[] = [];
  /** Writes taken (a source runs no transform, emits no batch and has no run to fail: it counts nothing else). */
  writes = 0;
  private disposed = false;

  constructor(
    objects: readonly T[],
    readonly name: string,
    stop: AbortSignal,
  ) {
    for (const o of objects) this.state.set(leanKeyOf(name, o), Object.freeze(o));
    stop.addEventListener('abort', () => this.dispose(), { once: true });
  }

  /** Inserts or replaces; always emits (an `update` even when equal), as `StaticCollection.updateObject`. */
  updateObject(o: T): void {
    if (this.disposed) throw new Error(`updateObject on ${JSON.stringify(this.name)}: the collection was stopped`);
    const key = leanKeyOf(this.name, o);
    const frozen = Object.freeze(o);
    if (tx.phase === 'open') {
      this.write(key, frozen);
    } else if (tx.beginIfIdle()) {
      // A write outside any transaction is one of its own, without a closure to run it.
      try {
        this.write(key, frozen);
      } finally {
        tx.commit();
      }
    } else {
      tx.run(() => this.write(key, frozen));
    }
  }

  private write(key: string, next: T): void {
    this.state.set(key, next);
    this.writes++;
    const dependents = this.dependents;
    for (let i = 0; i < dependents.length; i++) dependents[i]!.receive(key, next);
  }

  private dispose(): void {
    this.disposed = true;
    this.dependents.length = 0;
  }
}

/** The context of one transform run: what it fetched, and whether that read can be trusted. */
export class LeanContext implements FloorContext {
  fetched: Fetched | undefined = undefined;
  /** It read a collection that may not have committed in this transaction: the run is retried. */
  stale = false;
  /** It read a collection that has not synced. */
  readUnsynced = false;

  constructor(private readonly owner: { rank: number }) {}

  reset(): void {
    this.fetched = undefined;
    this.stale = this.readUnsynced = false;
  }

  /** Called by a fetch before it reads `source`. */
  reading(source: { readonly rank: number; readonly synced: boolean }): void {
    if (tx.phase === 'propagating' && source.rank >= this.owner.rank) this.stale = true;
    if (!source.synced) this.readUnsynced = true;
  }
}

/** The floor's service index over a lean source: a fetch first tells the context what it reads. */
export class LeanServiceIndex extends FloorServiceIndex {
  constructor(readonly source: LeanSource<Service>) {
    super(source);
  }

  override fetch(ctx: LeanContext, namespace: string, labels: Readonly<Record<string, string>>): Service[] {
    ctx.reading(this.source);
    return super.fetch(ctx, namespace, labels);
  }
}

/** One input: its value, what its last good run fetched, its output and its last error. */
interface LeanEntry<I, O> {
  readonly key: string;
  input: I | undefined;
  fetched: Fetched | undefined;
  value: O | undefined;
  queued: boolean;
  error: string | undefined;
}

type Named = { metadata: { name: string; namespace: string } };

/** A derived collection whose outputs are named like their inputs (B1's Workloads). */
export class LeanDerived<I extends Named, O extends Named> implements LeanNode, LeanDependent<I> {
  rank: number;
  queued = false;
  synced: boolean;
  readonly counters: LeanCounters = { recomputations: 0, batches: 0, events: 0, errors: 0 };
  private readonly entries = new Map<string, LeanEntry<I, O>>();
  private readonly readers = new Map<string, Set<LeanEntry<I, O>>>();
  private readonly queue = new LeanList<LeanEntry<I, O>>();
  private retry: LeanEntry<I, O>[] = [];
  private changed: LeanEvent<O>[] = [];
  private readonly handlers: Array<(batch: readonly LeanEvent<O>[]) => void> = [];
  private readonly ctx = new LeanContext(this);
  private disposed = false;

  constructor(
    private readonly parent: LeanSource<I>,
    private readonly transform: (ctx: LeanContext, input: I) => O | undefined | null,
    readonly name: string,
    stop: AbortSignal,
  ) {
    this.rank = parent.rank + 1;
    this.synced = parent.synced;
    parent.dependents.push(this);
    for (const [key, input] of parent.state) {
      const e: LeanEntry<I, O> = { key, input, fetched: undefined, value: undefined, queued: false, error: undefined };
      this.entries.set(key, e);
      this.run(e);
    }
    // Built before anyone listens: the initial state reaches a handler as it registers.
    this.changed = [];
    stop.addEventListener('abort', () => this.dispose(), { once: true });
  }

  /** Registers a per-event handler: the current outputs as adds now, each committed batch after its commit. */
  register(handler: (e: LeanEvent<O>) => void): void {
    const perBatch = (batch: readonly LeanEvent<O>[]): void => {
      for (const ev of batch) handler(ev);
    };
    const replay: LeanEvent<O>[] = [];
    for (const e of this.entries.values()) if (e.value !== undefined) replay.push({ type: 'add', new: e.value });
    if (tx.phase === 'idle') perBatch(replay);
    else tx.deliverAfter(perBatch as (b: readonly LeanEvent<unknown>[]) => void, replay);
    this.handlers.push(perBatch);
  }

  receive(key: string, next: I): void {
    let e = this.entries.get(key);
    if (e === undefined) {
      e = { key, input: undefined, fetched: undefined, value: undefined, queued: false, error: undefined };
      this.entries.set(key, e);
    }
    e.input = next;
    this.enqueue(e);
    tx.schedule(this);
  }

  flush(): void {
    if (this.retry.length > 0) {
      for (const e of this.retry) this.enqueue(e);
      this.retry = [];
    }
    const rank = this.rank;
    for (let i = 0; i < this.queue.length; i++) {
      const e = this.queue.at(i);
      e.queued = false;
      this.run(e);
    }
    this.queue.clear();
    if (this.rank !== rank) {
      // A run read a collection ranked at or above this one: rerun it at the new rank, once that one commits.
      tx.schedule(this);
      return;
    }
    if (this.changed.length === 0) return;
    const batch = this.changed;
    this.changed = [];
    this.counters.batches++;
    this.counters.events += batch.length;
    for (const h of this.handlers) tx.deliverAfter(h as (b: readonly LeanEvent<unknown>[]) => void, batch);
  }

  values(): IterableIterator<O> {
    return (function* (entries: Map<string, LeanEntry<I, O>>) {
      for (const e of entries.values()) if (e.value !== undefined) yield e.value;
    })(this.entries);
  }

  /** The input keys whose last run failed, with the message. */
  errors(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const e of this.entries.values()) if (e.error !== undefined) out.push([e.key, e.error]);
    return out;
  }

  private enqueue(e: LeanEntry<I, O>): void {
    if (e.queued) return;
    e.queued = true;
    this.queue.push(e);
  }

  private run(e: LeanEntry<I, O>): void {
    this.counters.recomputations++;
    const ctx = this.ctx;
    ctx.reset();
    let out: O | undefined | null;
    try {
      out = this.transform(ctx, e.input!);
    } catch (err) {
      // The last good output stays, filed under what the last good run read (rxkrt also files the failed run's reads).
      if (ctx.stale) this.retryLater(e, ctx);
      else this.fail(e, `transform failed: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (ctx.stale) return this.retryLater(e, ctx);
    if (ctx.readUnsynced) this.synced = false;
    fileReader(this.readers, e, ctx.fetched);
    e.error = undefined;
    const prev = e.value;
    if (out === undefined || out === null) {
      if (prev !== undefined) {
        e.value = undefined;
        this.changed.push({ type: 'delete', old: prev });
      }
      return;
    }
    if (out.metadata.name !== e.input!.metadata.name || out.metadata.namespace !== e.input!.metadata.namespace) {
      return this.fail(e, `output ${JSON.stringify(out.metadata)} is not named like its input (the lean engine keys outputs by input)`);
    }
    if (prev !== undefined && this.same(prev, out)) return;
    e.value = Object.freeze(out);
    this.changed.push(prev === undefined ? { type: 'add', new: out } : { type: 'update', old: prev, new: out });
  }

  /** `equals`; one that throws counts as different, and is counted. */
  private same(a: O, b: O): boolean {
    try {
      return equals(a, b);
    } catch {
      this.counters.errors++;
      return false;
    }
  }

  private fail(e: LeanEntry<I, O>, message: string): void {
    this.counters.errors++;
    e.error = `collection ${JSON.stringify(this.name)}, input ${JSON.stringify(e.key)}: ${message}`;
  }

  /** The run read an uncommitted collection: rank above it and run the input again in this transaction. */
  private retryLater(e: LeanEntry<I, O>, ctx: LeanContext): void {
    const index = ctx.fetched?.index as LeanServiceIndex | undefined;
    if (index !== undefined) this.rank = Math.max(this.rank, index.source.rank + 1);
    this.retry.push(e);
  }

  private dispose(): void {
    this.disposed = true;
    const i = this.parent.dependents.indexOf(this);
    if (i >= 0) this.parent.dependents.splice(i, 1);
    this.handlers.length = 0;
  }

  /** Whether the stop signal disposed it. */
  isDisposed(): boolean {
    return this.disposed;
  }
}
