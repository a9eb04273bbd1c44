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
  getKey(key: string): T | undefined;
  /**
   * The object under `key` now, then each committed change to it (distinct by the collection's `equals`),
   * `undefined` while absent. Emitted after the transaction commits, so it never shows a half-applied one.
   */
  get$(key: string): Observable<T | undefined>;
  /** Every object, in no particular order. */
  list(): T[];
  register(handler: EventHandler<T>): Registration;
  registerBatch(handler: BatchHandler<T>, runExistingState?: boolean): Registration;
  /** The current state as one batch of `add`s (when non-empty), then every committed batch. */
  readonly events$: Observable<readonly Event<T>[]>;
  /** Transform, handler and source failures. Hot: past errors are not replayed. */
  readonly errors$: Observable<TransformError>;
  metadata(): Record<string, unknown>;
}

/** A single optional value that announces its changes. */
export interface Singleton<T> extends Syncer {
  get(): T | undefined;
  /** The current value on subscribe, then each change (distinct by `equals`). */
  readonly value$: Observable<T | undefined>;
  register(handler: EventHandler<T>): Registration;
  asCollection(): Collection<T>;
  metadata(): Record<string, unknown>;
}

/** What a debug handler needs from a collection; implemented by every collection. */
export interface DebugTarget {
  readonly uid: number;
  readonly name: string;
  dump(): CollectionDump;
}

/** The registry collections join when built with `{ debugger }` (the DebugHandler class implements it). */
export interface DebugRegistry {
  register(c: DebugTarget): void;
  unregister(c: DebugTarget): void;
}

/** One collection's state in a debug dump (the shape of krt's `/debug/krtz`). */
export interface CollectionDump {
  outputs?: Record<string, unknown>;
  inputCollection?: string;
  inputs?: Record<string, InputDump>;
  synced: boolean;
}

/** One input of a derived collection in a debug dump. */
export interface InputDump {
  outputs?: string[];
  dependencies?: string[];
}

/**
 * Options every collection constructor takes. `T` is the collection's object type, which types `key` and
 * `equals`; constructors infer it from their other arguments (never from these two).
 */
export interface CollectionOptions<T = unknown> {
  name?: string;
  /** Disposes the collection when aborted: it unsubscribes from everything it read and leaves the debugger. */
  stop?: AbortSignal;
  metadata?: Record<string, unknown>;
  /** Overrides `keyOf` for this collection's objects. */
  key?: (o: T) => string;
  /** Overrides `equals` for this collection's objects. */
  equals?: (a: T, b: T) => boolean;
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
