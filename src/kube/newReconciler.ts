// The reconciler: runs an async `reconcile` per key of a collection through the keyed work queue.
import { Subject, type Observable, type SchedulerLike } from 'rxjs';
import type { Collection, CollectionDump, DebugRegistry, Registration } from '../core/types.js';
import { internal } from '../engine/internalCollection.js';
import { allocateUid } from '../engine/uid.js';
import { onAbort } from '../engine/onAbort.js';
import { UsageError } from '../core/errors.js';
import { log } from '../core/logger.js';
import type { BackoffPolicy } from './backoff.js';
import type { Gate } from './gate.js';
import { KeyedWorkQueue, type WorkContext, type WorkFailure, type WorkQueueStats, type WorkResult } from './keyedWorkQueue.js';
import { ReconcileError } from './reconcileError.js';

/** What a reconcile gets besides the object. */
export type ReconcileContext = WorkContext;

/** What a reconcile may return: nothing, or a request to run again after `requeueAfterMs` even if nothing changes. */
export type ReconcileResult = WorkResult;

/** Limits and hooks of a reconciler. */
export interface ReconcilerOptions<T> {
  /** Names the reconciler in errors, logs and debug dumps. Default `Reconciler[<collection's name>]`. */
  name?: string;
  /** Reconciles in flight at once (never two of one key). Default 4. */
  concurrency?: number;
  /** Reconciles started per second at most. Default 50. */
  qps?: number;
  /** Reconciles that may start at once after a quiet spell. Default 100. */
  burst?: number;
  /** Waits after a failed reconcile of one key: exponential from 100 ms, capped at 5 s, equal jitter. */
  backoff?: BackoffPolicy;
  /** Limits the reconciler to the keys this replica owns; in-flight work on a key it loses sees `signal` abort. */
  gate?: Gate;
  /**
   * Runs when an object leaves the collection, with its last state. A key that comes back before its
   * `onDelete` ran is reconciled instead. Failures are retried with backoff like a reconcile's.
   */
  onDelete?: (old: T, ctx: ReconcileContext) => Promise<void>;
  /** Stops the reconciler: nothing new starts, in-flight work sees `signal` abort. */
  stop?: AbortSignal;
  /** Where waits (backoff, rate limit, requeues) are scheduled. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /** A `DebugHandler` the reconciler joins, so its queue shows in `dump()`. */
  debugger?: DebugRegistry;
}

/** Counters and gauges of a reconciler. */
export interface ReconcilerStats extends WorkQueueStats {
  /** `reconcile` calls started. */
  reconciles: number;
  /** `onDelete` calls started. */
  deletes: number;
}

/** A running reconciler. */
export interface Reconciler {
  /** From the `name` option. */
  readonly name: string;
  /** Every failed reconcile or onDelete, with its key, attempt and the wait before the next one. */
  readonly errors$: Observable<ReconcileError>;
  /** Resolves once nothing is queued, running or backing off (requeues asked for with `requeueAfterMs` do not count). */
  idle(): Promise<void>;
  /** Counters and gauges, a snapshot. */
  stats(): ReconcilerStats;
  /** Stops, as aborting the `stop` option does. */
  stop(): void;
}

class ReconcilerImpl<T> implements Reconciler {
  readonly uid = allocateUid();
  readonly name: string;
  private readonly errors = new Subject<ReconcileError>();
  readonly errors$: Observable<ReconcileError> = this.errors.asObservable();
  private readonly queue: KeyedWorkQueue;
  private readonly registration: Registration;
  /** Last states of deleted objects whose `onDelete` has not run yet. */
  private readonly tombstones = new Map<string, T>();
  private readonly counts = { reconciles: 0, deletes: 0 };
  private stopped = false;
  private forgetAbort: (() => void) | undefined;

  constructor(
    private readonly collection: Collection<T>,
    private readonly reconcile: (obj: T, ctx: ReconcileContext) => Promise<ReconcileResult>,
    private readonly opts: ReconcilerOptions<T>,
  ) {
    const keyFn = internal(collection, 'newReconciler').keyOf;
    if (typeof reconcile !== 'function') {
      throw new UsageError(`newReconciler(${collection.name}): reconcile must be a function, got ${typeof reconcile}`);
    }
    this.name = opts.name ?? `Reconciler[${collection.name}]`;
    this.queue = new KeyedWorkQueue(`newReconciler(${collection.name})`, (key, ctx) => this.run(key, ctx), {
      concurrency: opts.concurrency,
      qps: opts.qps,
      burst: opts.burst ?? 100,
      backoff: opts.backoff,
      gate: opts.gate,
      timerScheduler: opts.timerScheduler,
      keys: () => [...collection.list().map(keyFn), ...this.tombstones.keys()],
      needsWork: (key) => collection.getKey(key) !== undefined || this.tombstones.has(key),
      onFailure: (f) => this.failed(f),
    });
    this.stopped = opts.stop?.aborted === true;
    if (this.stopped) this.queue.stop();
    this.registration = collection.registerBatch((batch) => {
      for (const e of batch) {
        if (e.type !== 'delete') {
          const key = keyFn(e.new);
          this.tombstones.delete(key);
          this.queue.add(key);
          continue;
        }
        const key = keyFn(e.old);
        // Without an onDelete there is nothing left to do for the key; a replica that does not own it
        // must not keep its last state around either.
        if (opts.onDelete === undefined || opts.gate?.owns(key) === false) this.queue.drop(key);
        else {
          this.tombstones.set(key, e.old);
          this.queue.add(key);
        }
      }
    });
    if (this.stopped) {
      this.registration.unregister();
      return;
    }
    opts.debugger?.register(this);
    if (opts.stop !== undefined) this.forgetAbort = onAbort(opts.stop, () => this.stop());
  }

  private async run(key: string, ctx: WorkContext): Promise<ReconcileResult> {
    const obj = this.collection.getKey(key);
    if (obj !== undefined) {
      this.counts.reconciles++;
      return this.reconcile(obj, ctx);
    }
    const old = this.tombstones.get(key);
    if (old === undefined || this.opts.onDelete === undefined) return;
    this.counts.deletes++;
    await this.opts.onDelete(old, ctx);
    // The key may have come back, or gone again with a newer last state, while onDelete ran.
    if (this.tombstones.get(key) === old) this.tombstones.delete(key);
  }

  private failed(f: WorkFailure): void {
    const error = new ReconcileError(this.name, f.key, f.attempt, f.retryInMs, f.error);
    // Retried, and on errors$ for whoever acts on it: the log only keeps the detail.
    log().debug({ reconciler: this.name, key: f.key, attempt: f.attempt, err: f.error }, error.message);
    this.errors.next(error);
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stats(): ReconcilerStats {
    return { ...this.queue.stats(), ...this.counts };
  }

  stop(): void {
    if (this.stopped && this.forgetAbort === undefined) return;
    this.stopped = true;
    this.forgetAbort?.();
    this.forgetAbort = undefined;
    this.registration.unregister();
    this.queue.stop();
    this.tombstones.clear();
    this.opts.debugger?.unregister(this);
    this.errors.complete();
  }

  dump(): CollectionDump {
    return {
      outputs: { stats: this.stats(), queued: this.queue.queuedKeys(), inFlight: this.queue.activeKeys() },
      inputCollection: this.collection.name,
      synced: this.registration.hasSynced(),
    };
  }
}

/**
 * Runs `reconcile(obj, { key, signal, attempt })` for every object of `collection` and again whenever it
 * changes: rxkrt's counterpart of kube-rs's `Controller::run(reconcile, error_policy)` and
 * controller-runtime's `Reconcile(ctx, req)`. A key is queued at most once; a key that changes while it is
 * reconciled is reconciled once more afterwards with the latest object; one key never runs twice at once.
 * A throw is reported on `errors$` and retried with exponential backoff and jitter (the attempt count is
 * passed in, reset by a success); a result `{ requeueAfterMs }` runs the key again after that long.
 * `concurrency`, `qps` and `burst` bound the work; a `gate` limits it to the keys this replica owns.
 * @example
 * const r = newReconciler(gadgets, async (g, { signal }) => {
 *   await ensureConfigMap(g, signal);
 *   return { requeueAfterMs: 60_000 };
 * }, { concurrency: 8, onDelete: async (g) => cleanUp(g) });
 */
export function newReconciler<T>(
  collection: Collection<T>,
  reconcile: (obj: T, ctx: ReconcileContext) => Promise<ReconcileResult>,
  opts: ReconcilerOptions<T> = {},
): Reconciler {
  return new ReconcilerImpl(collection, reconcile, opts);
}
