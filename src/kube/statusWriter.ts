// The status writer: patches `.status` of objects to what a status collection computed, only when it differs.
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { Gate } from './gate.js';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Collection, CollectionDump, DebugRegistry, Registration } from '../core/types.js';
import type { ObjectWithStatus } from '../collections/newStatusCollection.js';
import { equals } from '../core/equals.js';
import { UsageError } from '../core/errors.js';
import { internal } from '../engine/internalCollection.js';
import { log } from '../core/logger.js';
import { allocateUid } from '../engine/uid.js';
import { trackStatusWriter } from '../observe/liveComponents.js';
import { onAbort } from '../engine/onAbort.js';
import { backoffDelay, jitteredDelay, type BackoffPolicy } from './backoff.js';
import { collectionPath } from './resourcePath.js';
import { ApiError, requestJson } from './request.js';
import { RequestTimeoutError } from './requestTimeoutError.js';
import { retryAfterOf } from './retryAfter.js';
import { mergePatchOf } from './mergePatchOf.js';

/** How a status writer patches. */
export interface StatusWriterOptions {
  /** Names the writer in errors and debug dumps. Default `StatusWriter[<statuses' name>]`. */
  name?: string;
  /** `merge` (default): an RFC 7386 merge patch guarded by the object's resourceVersion. `apply`: server-side apply. */
  strategy?: 'merge' | 'apply';
  /** Field manager for server-side apply. Default `rxkrt`. */
  fieldManager?: string;
  /** Patches in flight at once. Default 4. */
  concurrency?: number;
  /** Patches started per second at most. Default 50. */
  qps?: number;
  /** Attempts per key before a failure is final (conflicts and 5xx are retried). Default 8. */
  maxAttempts?: number;
  /** Waits between retries of one key: exponential from 100 ms, capped at 5 s, with equal jitter by default. */
  backoff?: BackoffPolicy;
  /** Plural of a kind, where the default rule (lower-case + s) does not fit. */
  plurals?: Record<string, string>;
  /** Where waits (backoff, rate limit) are scheduled. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /**
   * How long one PATCH may go without a complete answer before it is aborted and retried with backoff (a
   * `RequestTimeoutError`, counted in `stats.timeouts`). Default 60 000 ms.
   */
  requestTimeoutMs?: number;
  /**
   * Limits the writer to the keys this replica owns (leader election, the shard ring): a key it does not own is
   * neither queued nor retried; when `changes$` emits, newly owned keys are written at once and queued work
   * for lost keys is dropped unwritten.
   */
  gate?: Gate;
  /** Stops the writer: nothing new starts; patches in flight finish. */
  stop?: AbortSignal;
  /** A `DebugHandler` the writer joins, so its queue shows in `dump()`. */
  debugger?: DebugRegistry;
}

/** Counters of a status writer. */
export interface StatusWriterStats {
  /** Successful patches. */
  writes: number;
  /** Keys whose desired status already matched the object: no request made. */
  skipped: number;
  /** 409 answers (retried). */
  conflicts: number;
  /** Retries scheduled (conflicts, 5xx, network). */
  retries: number;
  /** Final failures (non-retryable answers, or attempts exhausted). */
  failures: number;
  /** The object was gone (404): nothing to write. */
  notFound: number;
  /** Patches aborted by `requestTimeoutMs` (and retried). */
  timeouts: number;
  /** Patches in flight now. */
  inFlight: number;
  /** Keys waiting for a worker now. */
  queued: number;
  /** Keys left alone because the `gate` said this replica does not own them. */
  notOwned: number;
}

/** A running status writer. */
export interface StatusWriter {
  /** From the `name` option. */
  readonly name: string;
  /** Its counters, live. */
  readonly stats: Readonly<StatusWriterStats>;
  /** Resolves once nothing is queued, in flight or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops the writer, as aborting the `stop` option does: the queue and pending retries are dropped; patches in flight finish. */
  stop(): void;
}

class Writer<I extends KubernetesObject, S> implements StatusWriter {
  readonly uid = allocateUid();
  readonly name: string;
  readonly stats: StatusWriterStats = {
    writes: 0,
    skipped: 0,
    conflicts: 0,
    retries: 0,
    failures: 0,
    notFound: 0,
    timeouts: 0,
    inFlight: 0,
    queued: 0,
    notOwned: 0,
  };
  /** Keys waiting for a worker, in arrival order; a key queued twice is written once. */
  private readonly queue = new Set<string>();
  /** Keys being written now; a change meanwhile re-queues them when the write ends. */
  private readonly active = new Set<string>();
  private readonly dirtyWhileActive = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly retryTimers = new Map<string, Subscription>();
  private readonly registration: Registration;
  private gateSubscription: Subscription | undefined;
  private readonly timers: SchedulerLike;
  private tokens: number;
  private lastRefill: number;
  private refillTimer: Subscription | undefined;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly kc: KubeConfig,
    private readonly statuses: Collection<ObjectWithStatus<I, S>>,
    private readonly opts: StatusWriterOptions,
  ) {
    // A writer that can never start a patch would sit silently idle: refuse it at once.
    for (const option of ['concurrency', 'qps', 'maxAttempts'] as const) {
      const v = opts[option];
      if (v !== undefined && !(typeof v === 'number' && v > 0 && (option === 'qps' || Number.isInteger(v)))) {
        throw new UsageError(
          `newStatusWriter: ${option} must be a positive ${option === 'qps' ? 'number' : 'integer'}, got ${JSON.stringify(v)}`,
        );
      }
    }
    this.name = opts.name ?? `StatusWriter[${statuses.name}]`;
    this.timers = opts.timerScheduler ?? asyncScheduler;
    this.tokens = this.qps;
    this.lastRefill = this.timers.now();
    const keyFn = internal(statuses, 'newStatusWriter').keyOf;
    // Stopped before it started: the replay below must not start a single write.
    this.stopped = opts.stop?.aborted === true;
    this.registration = statuses.registerBatch((batch) => {
      for (const e of batch) if (e.type !== 'delete') this.enqueue(keyFn(e.new));
    });
    if (this.stopped) {
      this.registration.unregister();
      return;
    }
    opts.debugger?.register(this);
    this.gateSubscription = opts.gate?.changes$.subscribe(() => this.ownershipChanged(keyFn));
    const statusOf = statuses.name;
    this.untrack = trackStatusWriter(this, () => {
      const { writes, skipped, conflicts, failures, queued } = this.stats;
      return { collection: statusOf, writes, skipped, conflicts, failures, queued };
    });
    if (opts.stop !== undefined) onAbort(opts.stop, () => this.stop());
  }

  /** Leaves the set of running writers that metrics read. */
  private untrack: (() => void) | undefined;

  private get qps(): number {
    return this.opts.qps ?? 50;
  }

  /** Picks up every key now owned, and drops queued or retrying work for keys no longer owned. */
  private ownershipChanged(keyFn: (o: ObjectWithStatus<I, S>) => string): void {
    if (this.stopped) return;
    for (const key of [...this.queue, ...this.retryTimers.keys()]) if (!this.mayWrite(key)) this.drop(key);
    for (const desired of this.statuses.list()) {
      const key = keyFn(desired);
      if (!this.queue.has(key) && !this.retryTimers.has(key) && this.opts.gate?.owns(key) !== false) this.enqueue(key);
    }
    this.stats.queued = this.queue.size;
    this.checkIdle();
  }

  /** Whether the gate (if any) lets this replica write `key`; counts the refusals. */
  private mayWrite(key: string): boolean {
    if (this.opts.gate === undefined || this.opts.gate.owns(key)) return true;
    this.stats.notOwned++;
    return false;
  }

  /** Forgets every pending piece of work on `key` (queue, retry, attempts) without writing it. */
  private drop(key: string): void {
    this.queue.delete(key);
    this.retryTimers.get(key)?.unsubscribe();
    this.retryTimers.delete(key);
    this.attempts.delete(key);
    this.dirtyWhileActive.delete(key);
  }

  private enqueue(key: string): void {
    if (this.stopped) return;
    if (!this.mayWrite(key)) {
      this.drop(key);
      this.stats.queued = this.queue.size;
      this.checkIdle();
      return;
    }
    // A write from the latest view supersedes a pending retry: the retry would repeat it later from the
    // view it had then, which may by now be stale (a pointless 409, or a status that was already written).
    const retry = this.retryTimers.get(key);
    if (retry !== undefined) {
      retry.unsubscribe();
      this.retryTimers.delete(key);
    }
    if (this.active.has(key)) {
      this.dirtyWhileActive.add(key);
      return;
    }
    // Settle at once what needs no request (gone, or already as desired): queued behind keys that wait for
    // a token it would wait for nothing, and keep idle() from resolving.
    if (this.needsWrite(key) === undefined) {
      this.queue.delete(key);
      this.stats.queued = this.queue.size;
      this.checkIdle();
      return;
    }
    this.queue.add(key);
    this.stats.queued = this.queue.size;
    this.pump();
  }

  /** Starts as many writes as concurrency and the rate limit allow. */
  private pump(): void {
    while (!this.stopped && this.queue.size > 0) {
      const key = this.queue.values().next().value as string;
      // Ownership is checked again at the last moment: it may have moved while the key waited.
      const desired = this.mayWrite(key) ? this.needsWrite(key) : undefined;
      if (desired === undefined) {
        // Nothing to send: settled here, without a worker slot or a rate-limit token (a restart over
        // thousands of objects whose status is already right must not take thousands / qps seconds).
        this.queue.delete(key);
        this.stats.queued = this.queue.size;
        continue;
      }
      if (this.active.size >= (this.opts.concurrency ?? 4) || !this.takeToken()) break;
      this.queue.delete(key);
      this.stats.queued = this.queue.size;
      this.active.add(key);
      this.stats.inFlight = this.active.size;
      void this.write(key, desired).finally(() => this.finish(key));
    }
    this.checkIdle();
  }

  /**
   * The desired status of `key` when it must be written; undefined (and counted) when the object is gone
   * (never write for an object that no longer exists) or already carries it.
   */
  private needsWrite(key: string): ObjectWithStatus<I, S> | undefined {
    const desired = this.statuses.getKey(key);
    if (desired === undefined) {
      this.attempts.delete(key);
      return undefined;
    }
    if (equals((desired.obj as I & { status?: unknown }).status, desired.status)) {
      this.stats.skipped++;
      this.attempts.delete(key);
      return undefined;
    }
    return desired;
  }

  /** Token bucket: `qps` tokens per second, bursts up to `qps`. Without a token, waits for the next one. */
  private takeToken(): boolean {
    const now = this.timers.now();
    this.tokens = Math.min(this.qps, this.tokens + ((now - this.lastRefill) * this.qps) / 1000);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.refillTimer ??= this.timers.schedule(
      () => {
        this.refillTimer = undefined;
        this.pump();
      },
      Math.ceil(((1 - this.tokens) * 1000) / this.qps),
    );
    return false;
  }

  private finish(key: string): void {
    this.active.delete(key);
    this.stats.inFlight = this.active.size;
    if (this.dirtyWhileActive.delete(key)) this.enqueue(key);
    this.pump();
  }

  private async write(key: string, desired: ObjectWithStatus<I, S>): Promise<void> {
    try {
      await this.patch(desired.obj as I & { status?: unknown }, desired.status);
      this.stats.writes++;
      this.attempts.delete(key);
    } catch (e) {
      this.failed(key, e);
    }
  }

  private async patch(live: I & { status?: unknown }, status: S): Promise<void> {
    const md = live.metadata ?? {};
    const apiVersion = live.apiVersion ?? '';
    const kind = live.kind ?? '';
    const bounds = { timeoutMs: this.opts.requestTimeoutMs ?? 60_000, scheduler: this.timers };
    const path = `${collectionPath({ apiVersion, kind, namespace: md.namespace, plural: this.opts.plurals?.[kind] })}/${encodeURIComponent(md.name ?? '')}/status`;
    if ((this.opts.strategy ?? 'merge') === 'apply') {
      await requestJson(
        this.kc,
        'PATCH',
        path,
        { fieldManager: this.opts.fieldManager ?? 'rxkrt', force: 'true' },
        {
          contentType: 'application/apply-patch+yaml',
          value: { apiVersion, kind, metadata: { name: md.name, namespace: md.namespace }, status },
        },
        bounds,
      );
      return;
    }
    // The resourceVersion makes the patch conditional: a status computed from a stale object gets a 409.
    await requestJson(
      this.kc,
      'PATCH',
      path,
      {},
      {
        contentType: 'application/merge-patch+json',
        value: { metadata: { resourceVersion: md.resourceVersion }, status: mergePatchOf(live.status, status) ?? {} },
      },
      bounds,
    );
  }

  private failed(key: string, e: unknown): void {
    const status = e instanceof ApiError ? e.statusCode : undefined;
    if (status === 404) {
      this.stats.notFound++;
      this.attempts.delete(key);
      return;
    }
    if (status === 409) this.stats.conflicts++;
    if (e instanceof RequestTimeoutError) this.stats.timeouts++;
    const retryable = status === undefined || status === 409 || status === 429 || status >= 500;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    if (!retryable || attempt >= (this.opts.maxAttempts ?? 8)) {
      this.stats.failures++;
      this.attempts.delete(key);
      log().error(
        { statusWriter: this.name, key, attempts: attempt, err: e },
        `${this.name}: giving up on the status of ${key} after ${attempt} attempt(s)`,
      );
      return;
    }
    this.attempts.set(key, attempt);
    this.stats.retries++;
    log().debug(
      { statusWriter: this.name, key, attempt, status },
      `${this.name}: retrying the status of ${key} (attempt ${attempt}, ${status === undefined ? 'no answer' : `HTTP ${status}`})`,
    );
    this.retryTimers.get(key)?.unsubscribe();
    this.retryTimers.set(
      key,
      this.timers.schedule(
        () => {
          this.retryTimers.delete(key);
          this.enqueue(key);
        },
        // The server's Retry-After (429, 503) is a floor: retrying sooner would only be refused again.
        Math.max(jitteredDelay(backoffDelay(attempt, this.opts.backoff), this.opts.backoff), retryAfterOf(e) ?? 0),
      ),
    );
  }

  private checkIdle(): void {
    if (this.queue.size > 0 || this.active.size > 0 || this.retryTimers.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.registration.unregister();
    this.gateSubscription?.unsubscribe();
    this.queue.clear();
    this.stats.queued = 0;
    for (const t of this.retryTimers.values()) t.unsubscribe();
    this.retryTimers.clear();
    this.refillTimer?.unsubscribe();
    this.opts.debugger?.unregister(this);
    this.untrack?.();
    this.checkIdle();
  }

  dump(): CollectionDump {
    return {
      outputs: { stats: { ...this.stats }, queued: [...this.queue], inFlight: [...this.active] },
      inputCollection: this.statuses.name,
      synced: this.registration.hasSynced(),
    };
  }
}

/**
 * Writes the statuses of a status collection back to the API server through each object's `status`
 * subresource, only when the desired status differs from what the object carries. Conflicts (409), 429,
 * 5xx, network errors and timeouts (`requestTimeoutMs`) are retried with backoff, never sooner than the
 * server's Retry-After (capped at 30 s); an object that no longer exists is never written.
 * Concurrency and rate are bounded; counters are in `stats` (and in the debug dump with `debugger`).
 * @example
 * const [status] = newStatusCollection(policies, (ctx, p) => ({ status: { matched: count(ctx, p) } }));
 * const writer = newStatusWriter(kc, status, { strategy: 'apply', fieldManager: 'my-controller' });
 */
export function newStatusWriter<I extends KubernetesObject, S>(
  kc: KubeConfig,
  statuses: Collection<ObjectWithStatus<I, S>>,
  opts: StatusWriterOptions = {},
): StatusWriter {
  return new Writer<I, S>(kc, statuses, opts);
}
