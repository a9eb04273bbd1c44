// The public shapes of the API: collections, singletons, registrations, options, the handler context.
import type { InteropObservable, Observable } from 'rxjs';
import type { Event } from './event.js';
import type { TransformError } from './errors.js';

/** Anything with a sync state. */
export interface Syncer {
  /** True once the initial state is complete (and stays true). */
  hasSynced(): boolean;
  /** Resolves true once synced, or false when `signal` aborts first. */
  waitUntilSynced(signal?: AbortSignal): Promise<boolean>;
}

/** A handler registration: synced once the collection has synced and the handler has processed its initial batches. */
export interface Registration extends Syncer {
  /** Stops delivery at once. */
  unregister(): void;
}

/** A handler of single events. A returned Promise holds back this handler's next event until it settles. */
export type EventHandler<T> = (e: Event<T>) => void | Promise<void>;
/** A handler of batches. A returned Promise holds back this handler's next batch until it settles. */
export type BatchHandler<T> = (batch: readonly Event<T>[]) => void | Promise<void>;

/** A keyed set of immutable objects that announces its changes. */
export interface Collection<T> extends Syncer, InteropObservable<readonly Event<T>[]> {
  /** From the `name` option, else a default like `Collection[3]`. */
  readonly name: string;
  /** Unique in the process. */
  readonly uid: number;
  /** The object with this key (see `keyOf`), or undefined. */
  getKey(key: string): T | undefined;
  /**
   * The object under `key` now, then each committed change to it (distinct by the collection's `equals`),
   * `undefined` while absent. Emitted after the transaction commits, so it never shows a half-applied one.
   */
  get$(key: string): Observable<T | undefined>;
  /** Every object, in no particular order. */
  list(): T[];
  /**
   * Calls `handler` with one `add` per object present now, then with every later event, one call each, in the
   * order committed; nothing is missed or repeated between the two.
   */
  register(handler: EventHandler<T>): Registration;
  /**
   * Calls `handler` with the current state as one batch of `add`s (skipped when empty, or when
   * `runExistingState` is false; default true), then with each later batch: one per transaction.
   */
  registerBatch(handler: BatchHandler<T>, runExistingState?: boolean): Registration;
  /** The current state as one batch of `add`s (when non-empty), then every committed batch. */
  readonly events$: Observable<readonly Event<T>[]>;
  /** Transform, handler and source failures. Hot: past errors are not replayed. */
  readonly errors$: Observable<TransformError>;
  /** The `metadata` option the collection was built with (`mapCollection` inherits its parent's). */
  metadata(): Record<string, unknown>;
}

/** A single optional value that announces its changes. */
export interface Singleton<T> extends Syncer {
  /** The current value, or undefined when there is none. */
  get(): T | undefined;
  /** The current value on subscribe, then each change (distinct by `equals`). */
  readonly value$: Observable<T | undefined>;
  /** As `Collection.register`: an `add` for the current value, then each change as an event. */
  register(handler: EventHandler<T>): Registration;
  /** The value as a collection of zero or one object, keyed by `keyOf`, for fetching it in a transform. */
  asCollection(): Collection<T>;
  /** The `metadata` option the singleton was built with. */
  metadata(): Record<string, unknown>;
}

/** What a debug handler needs from a collection; implemented by every collection. */
export interface DebugTarget {
  /** The collection's `uid`. */
  readonly uid: number;
  /** The collection's `name`. */
  readonly name: string;
  /** The collection's state now, as a debug dump shows it. */
  dump(): CollectionDump;
}

/** The registry collections join when built with `{ debugger }` (the DebugHandler class implements it). */
export interface DebugRegistry {
  /** Called once by each collection built with this registry as its `debugger`. */
  register(c: DebugTarget): void;
  /** Called when such a collection stops. */
  unregister(c: DebugTarget): void;
}

/** One collection's state in a debug dump (the shape of krt's `/debug/krtz`). */
export interface CollectionDump {
  /** Every object, by key. */
  outputs?: Record<string, unknown>;
  /** The name of the parent collection, for a collection derived from one. */
  inputCollection?: string;
  /** For a derived collection: what each input key produced and read. */
  inputs?: Record<string, InputDump>;
  /** Whether the collection has synced. */
  synced: boolean;
}

/** One input of a derived collection in a debug dump. */
export interface InputDump {
  /** The keys of the objects this input produced. */
  outputs?: string[];
  /** The names of the collections its transform fetched. */
  dependencies?: string[];
}

/**
 * Options every collection constructor takes. `T` is the collection's object type, which types `key` and
 * `equals`; constructors infer it from their other arguments (never from these two).
 */
export interface CollectionOptions<T = unknown> {
  /** Names the collection in errors, logs and debug dumps; a default like `Collection[3]` otherwise. */
  name?: string;
  /** Disposes the collection when aborted: it unsubscribes from everything it read and leaves the debugger. */
  stop?: AbortSignal;
  /** Free-form data about the collection, returned by `metadata()`. */
  metadata?: Record<string, unknown>;
  /** Overrides `keyOf` for this collection's objects. */
  key?: (o: T) => string;
  /** Overrides `equals` for this collection's objects. */
  equals?: (a: T, b: T) => boolean;
  /** A `DebugHandler` (or any registry) the collection joins, so its state shows in `dump()`. */
  debugger?: DebugRegistry;
}

/** @internal The brand that seals HandlerContext: only rxkrt can make one. */
export const CONTEXT_BRAND: unique symbol = Symbol('rxkrt.handlerContext');

/** The context a transform receives; pass it to `fetch` so the runtime can record what the transform read. */
export interface HandlerContext {
  /** Keep this input's last output instead of this run's result (on a first run with a non-empty result, the result is kept). */
  discardResult(): void;
  /** @internal */
  readonly [CONTEXT_BRAND]: true;
}
