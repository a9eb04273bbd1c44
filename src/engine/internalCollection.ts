// The internal face of a collection: what fetch, indexes and the engine use beyond the public interface.
import type { Collection } from '../core/types.js';
import { describeValue, UsageError } from '../core/errors.js';
import type { COLLECTION_BRAND } from '../core/keyOf.js';
import type { Labels } from '../core/labels.js';
import type { CandidateList } from './indexes/candidateList.js';
import type { CollectionCounters } from './counters.js';

/** @internal Every collection rxkrt builds implements this; users cannot (the brand is not exported). */
export interface InternalCollection<T> extends Collection<T> {
  readonly [COLLECTION_BRAND]: true;
  /** Topological rank: above every collection this one reads. */
  rank: number;
  /** Grows with every change to the visible state (what `getKey`, `values()` and the indexes answer). */
  readonly stateVersion: number;
  /** This collection's key function (the `key` option, else `keyOf`); throws KeyError naming the collection. */
  keyOf(o: unknown): string;
  /** True when `keyOf` is the default `keyOf` (no `key` option). */
  readonly defaultKeyed: boolean;
  /** Iterates the committed values without copying. */
  values(): IterableIterator<T>;
  /**
   * Calls `fn` with each value of `values()` and its key: the very string the collection keeps, so a reader
   * that files the values under their keys shares those strings instead of building a copy per object.
   */
  forEachKeyed(fn: (value: T, key: string) => void): void;
  readonly size: number;
  /**
   * Appends to `out`, in `values()` order, the objects whose selector may be a subset of `labels`
   * (`withEmpty`: or is empty), and returns true; returns false, appending nothing, when the caller should
   * scan `values()` itself (too few objects for a lookup to pay, or a collection that keeps none).
   */
  selecting(labels: Labels, withEmpty: boolean, out: CandidateList<T>): boolean;
  /** Indexes maintained in step with this collection's state. */
  indexFor(name: string, extract: (o: T) => readonly string[]): IndexHandle<T>;
  /** Adds a node that receives this collection's batches inside the transaction. */
  addDependent(node: Dependent): void;
  removeDependent(node: Dependent): void;
  /**
   * Asks a collection that `taker` already depends on to hand it each write as it happens (see
   * `WriteTaker`); true when it will. Sources do; a collection without the method only emits batches.
   */
  handWritesTo?(taker: WriteTaker): boolean;
  /** What the collection has done since it was built (read by `collectionStats` and metrics). */
  readonly counters: CollectionCounters;
  /** Counts, logs and emits an error on `errors$` after the commit. */
  reportError(err: import('../core/errors.js').TransformError): void;
  /** How many dependents and handlers are attached (leak tests). */
  subscriberCount(): number;
  readonly disposed: boolean;
}

/** @internal A node inside the graph that receives batches from collections it reads. */
export interface Dependent {
  readonly uid: number;
  rank: number;
  readonly name: string;
  /** A batch from a collection this node reads; `keys[i]` is the key of `events[i]` (so nobody derives it again). */
  receive(from: InternalCollection<unknown>, events: readonly import('../core/event.js').Event<unknown>[], keys: readonly string[]): void;
  /** Dependents of this node, for rank propagation. */
  dependentsForRank(): Iterable<Dependent>;
  /** Re-evaluate sync (something this node reads may have synced). */
  upstreamSynced(): void;
  /**
   * Takes a source's batch as the transaction's writes in order, a key's last write winning, so that a key
   * may come more than once. A source read by nothing else (no handler either) then skips folding its batch.
   */
  readonly takesRepeatedKeys?: boolean;
  /**
   * Whether this node has no use for `from`'s batches: it takes that collection's writes as they happen
   * (`WriteTaker`) and reads nothing else of its batches. A source whose every reader says so, and which has
   * no handler, builds no batch at all.
   */
  ignoresBatchesOf?(from: InternalCollection<unknown>): boolean;
}

/**
 * @internal A derived collection whose parent is a source: it takes each write of the parent as a key and a
 * value (undefined: deleted) while the transaction is open, instead of reading the parent's batch, so a
 * one-write transaction builds no event for it. Writes of a value equal to the one they replace (and not
 * forced) are not handed over, as they would make no event.
 */
export interface WriteTaker extends Dependent {
  takeWrite(key: string, value: unknown): void;
}

/** @internal A secondary index over one collection, kept in step with its state. */
export interface IndexHandle<T> {
  readonly uid: number;
  readonly name: string;
  readonly source: InternalCollection<T>;
  extract(o: T): readonly string[];
  /** The objects under `key`, without copying. */
  lookupValues(key: string): Iterable<T>;
  /**
   * Appends to `out`, in the order `lookupValues` gives, the objects under `key` whose selector may be a
   * subset of `labels` (`withEmpty`: or is empty), and returns true; returns false, appending nothing, when
   * the group is too small for a lookup to pay and the caller should scan `lookupValues` itself.
   */
  selecting(key: string, labels: Labels, withEmpty: boolean, out: CandidateList<T>): boolean;
  /** Index keys present (for asCollection). */
  keys(): Iterable<string>;
  /** Number of non-empty groups. */
  readonly size: number;
}

/**
 * @internal Returns the internal face of a collection. `call` names the public function that was handed `c`,
 * so that a wrong argument (null, a plain object, a collection of another library) fails there, clearly.
 * @throws UsageError for anything that is not a collection built by rxkrt.
 */
export function internal<T>(c: Collection<T>, call = 'rxkrt'): InternalCollection<T> {
  const ic = c as Partial<InternalCollection<T>> | null | undefined;
  if (
    typeof ic !== 'object' ||
    ic === null ||
    typeof ic.keyOf !== 'function' ||
    typeof ic.values !== 'function' ||
    typeof ic.addDependent !== 'function'
  ) {
    throw new UsageError(`${call}: ${describeCollection(c)} is not a collection built by rxkrt`);
  }
  return ic as InternalCollection<T>;
}

/** @internal Throws a UsageError naming `call` unless `fn` is a function; `what` says which argument it is. */
export function requireFunction(fn: unknown, call: string, what: string): void {
  if (typeof fn !== 'function') throw new UsageError(`${call} needs ${what} (a function), got ${describeValue(fn)}`);
}

/** @internal Throws a UsageError naming `call` unless `o` can be subscribed to (an RxJS Observable or alike). */
export function requireObservable(o: unknown, call: string): void {
  if (typeof o !== 'object' || o === null || typeof (o as { subscribe?: unknown }).subscribe !== 'function') {
    throw new UsageError(`${call} needs an Observable, got ${describeValue(o)}`);
  }
}

/**
 * @internal `requireFunction` for a transform, which must also return its result: an `async` function is
 * refused at once, since what it fetched after its first `await` could never be recorded.
 */
export function requireTransform(fn: unknown, call: string, what = 'a transform'): void {
  requireFunction(fn, call, what);
  if ((fn as { constructor?: { name?: unknown } }).constructor?.name === 'AsyncFunction') {
    throw new UsageError(`${call} needs ${what} that returns its result, not an async function: transforms run synchronously`);
  }
}

function describeCollection(c: unknown): string {
  const name = typeof c === 'object' && c !== null ? (c as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : describeValue(c);
}
