// The keyed work queue under every side-effect sink (status writer, reconciler, finalizer, event recorder):
// a key queued at most once, one run per key at a time, a token bucket, per-key backoff, a gate.
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { UsageError } from '../core/errors.js';
import type { Gate } from './gate.js';
import { backoffDelay, jitteredDelay, type BackoffPolicy } from './backoff.js';
import { TokenBucket } from './tokenBucket.js';

/** What one run of a key gets. */
export interface WorkContext {
  /** The key being worked on. */
  readonly key: string;
  /** Aborted when the queue stops or the gate takes the key away while the run is in flight. */
  readonly signal: AbortSignal;
  /** 1 for the first run, n+1 after n failures in a row (reset by a success). */
  readonly attempt: number;
}

/** What a run may ask for: nothing, or to run again after a while even if nothing changes. */
export type WorkResult = void | {
  /** Run the key again after this many milliseconds, even if nothing changes (a change meanwhile runs it at once). */
  requeueAfterMs: number;
};

/** One failed run, as the queue reports it. */
export interface WorkFailure {
  /** The key whose run failed. */
  readonly key: string;
  /** What the run threw. */
  readonly error: unknown;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The wait before the next attempt; undefined when the queue gave up on the key. */
  readonly retryInMs: number | undefined;
}

/** Limits and hooks of a keyed work queue. */
export interface KeyedWorkQueueOptions {
  /** Runs in flight at once. Default 4. */
  concurrency?: number;
  /** Runs started per second at most (a token bucket). Default 50. */
  qps?: number;
  /** Runs that may start at once after a quiet spell (the bucket's size). Default `qps` (at least 1). */
  burst?: number;
  /** Waits between failed attempts of one key: exponential from 100 ms, capped at 5 s, equal jitter. */
  backoff?: BackoffPolicy;
  /** Attempts before a failure is final. Default: never final. */
  maxAttempts?: number;
  /** Limits the queue to the keys this replica owns. */
  gate?: Gate;
  /** Where waits (backoff, rate limit, requeues) are scheduled and the clock read. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  /** Every key that may need work: read when the gate's ownership changes, to pick up newly owned keys. */
  keys?: () => Iterable<string>;
  /** Whether a key still needs a run; false settles it at once, without a worker or a token. Default: always. */
  needsWork?: (key: string) => boolean;
  /** Whether a failure is worth another attempt. Default: every failure is. */
  retryable?: (error: unknown) => boolean;
  /** A floor on the wait before retrying after `error` (a server's Retry-After). */
  minRetryDelayMs?: (error: unknown) => number | undefined;
  /** Hears every failed run. */
  onFailure?: (failure: WorkFailure) => void;
}

/** Counters and gauges of a keyed work queue. */
export interface WorkQueueStats {
  /** Keys waiting for a worker now. */
  queued: number;
  /** Runs in flight now. */
  inFlight: number;
  /** Keys waiting for a retry after a failure now. */
  backingOff: number;
  /** Keys waiting for a requeue they asked for (`requeueAfterMs`) now. */
  scheduled: number;
  /** Runs that succeeded. */
  succeeded: number;
  /** Runs that failed. */
  failed: number;
  /** Retries scheduled after failures. */
  retries: number;
  /** Keys given up on (a failure not retryable, or `maxAttempts` reached). */
  givenUp: number;
  /** Requeues scheduled because a run asked for one. */
  requeues: number;
  /** Keys left alone because the gate said this replica does not own them. */
  notOwned: number;
}

/** Throws a UsageError when `value` is set and not a positive number (an integer when `integer`). */
export function checkPositive(owner: string, option: string, value: unknown, integer: boolean): void {
  if (value === undefined) return;
  if (typeof value === 'number' && value > 0 && (!integer || Number.isInteger(value))) return;
  throw new UsageError(`${owner}: ${option} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(value)}`);
}

type Timer = { readonly kind: 'retry' | 'requeue'; readonly subscription: Subscription };

/**
 * A queue of keys worked on by `work`. Rules: a key is queued at most once; a key added while it runs runs
 * once more after the run ends (so the latest state is always seen); one key never runs twice at once; at
 * most `concurrency` runs are in flight and at most `qps` start per second; a failed run is retried with
 * exponential backoff and jitter (an `add` meanwhile retries at once), a run asking for `requeueAfterMs`
 * runs again then (an `add` meanwhile runs at once). `idle()` waits for queued, running and backing-off
 * keys, not for requeues asked for, which may recur forever.
 */
export class KeyedWorkQueue {
  private readonly counters = { succeeded: 0, failed: 0, retries: 0, givenUp: 0, requeues: 0, notOwned: 0 };
  private readonly queue = new Set<string>();
  private readonly active = new Map<string, AbortController>();
  private readonly dirtyWhileActive = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly timers = new Map<string, Timer>();
  private readonly bucket: TokenBucket;
  private readonly scheduler: SchedulerLike;
  private readonly concurrency: number;
  private readonly gateSubscription: Subscription | undefined;
  private refillTimer: Subscription | undefined;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    owner: string,
    private readonly work: (key: string, ctx: WorkContext) => Promise<WorkResult>,
    private readonly opts: KeyedWorkQueueOptions = {},
  ) {
    // A queue that can never start a run would sit silently idle: refuse it at once.
    checkPositive(owner, 'concurrency', opts.concurrency, true);
    checkPositive(owner, 'qps', opts.qps, false);
    checkPositive(owner, 'burst', opts.burst, true);
    checkPositive(owner, 'maxAttempts', opts.maxAttempts, true);
    this.concurrency = opts.concurrency ?? 4;
    this.scheduler = opts.timerScheduler ?? asyncScheduler;
    const qps = opts.qps ?? 50;
    this.bucket = new TokenBucket(qps, opts.burst ?? Math.max(1, qps), this.scheduler.now());
    this.gateSubscription = opts.gate?.changes$.subscribe(() => this.ownershipChanged());
  }

  /** Counters and gauges, a snapshot. */
  stats(): WorkQueueStats {
    let backingOff = 0;
    for (const t of this.timers.values()) if (t.kind === 'retry') backingOff++;
    return {
      ...this.counters,
      queued: this.queue.size,
      inFlight: this.active.size,
      backingOff,
      scheduled: this.timers.size - backingOff,
    };
  }

  /** Keys waiting for a worker, in order. */
  queuedKeys(): string[] {
    return [...this.queue];
  }

  /** Keys running now. */
  activeKeys(): string[] {
    return [...this.active.keys()];
  }

  /** Asks for a run of `key` with the latest state: queued once, or once more after the run in flight. */
  add(key: string): void {
    if (this.stopped) return;
    if (!this.mayRun(key)) {
      this.drop(key);
      this.checkIdle();
      return;
    }
    // The latest state supersedes a pending retry or requeue: those would repeat a run later from a view
    // that may by now be stale.
    this.cancelTimer(key);
    if (this.active.has(key)) {
      this.dirtyWhileActive.add(key);
      return;
    }
    // Settle at once what needs no run: queued behind keys waiting for a token it would wait for nothing.
    if (!this.needsWork(key)) {
      this.queue.delete(key);
      this.checkIdle();
      return;
    }
    this.queue.add(key);
    this.pump();
  }

  /** Forgets every pending piece of work on `key` (queued, retry, requeue, attempts); a run in flight finishes. */
  drop(key: string): void {
    this.queue.delete(key);
    this.cancelTimer(key);
    this.attempts.delete(key);
    this.dirtyWhileActive.delete(key);
  }

  /** Resolves once nothing is queued, in flight or backing off (requeues asked for do not count). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
  }

  /** Stops: nothing new starts, queued and waiting work is dropped, runs in flight see their signal aborted. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.gateSubscription?.unsubscribe();
    this.queue.clear();
    this.dirtyWhileActive.clear();
    for (const t of this.timers.values()) t.subscription.unsubscribe();
    this.timers.clear();
    this.refillTimer?.unsubscribe();
    for (const c of this.active.values()) c.abort(new Error('the work queue was stopped'));
    this.checkIdle();
  }

  private needsWork(key: string): boolean {
    if (this.opts.needsWork === undefined || this.opts.needsWork(key)) return true;
    this.attempts.delete(key);
    return false;
  }

  /** Whether the gate (if any) lets this replica run `key`; counts the refusals. */
  private mayRun(key: string): boolean {
    if (this.opts.gate === undefined || this.opts.gate.owns(key)) return true;
    this.counters.notOwned++;
    return false;
  }

  private cancelTimer(key: string): void {
    this.timers.get(key)?.subscription.unsubscribe();
    this.timers.delete(key);
  }

  /** Picks up every key now owned, drops waiting work for lost keys and aborts their runs in flight. */
  private ownershipChanged(): void {
    if (this.stopped) return;
    for (const key of [...this.queue, ...this.timers.keys()]) if (!this.mayRun(key)) this.drop(key);
    for (const [key, run] of this.active) {
      if (!this.mayRun(key)) {
        this.dirtyWhileActive.delete(key);
        run.abort(new Error(`this replica no longer owns ${key}`));
      }
    }
    for (const key of this.opts.keys?.() ?? []) {
      if (!this.queue.has(key) && !this.timers.has(key) && !this.active.has(key) && this.opts.gate?.owns(key) !== false) this.add(key);
    }
    this.checkIdle();
  }

  /** Starts as many runs as concurrency and the rate limit allow. */
  private pump(): void {
    while (!this.stopped && this.queue.size > 0) {
      const key = this.queue.values().next().value as string;
      // Ownership and need are checked again at the last moment: either may have changed while the key waited.
      if (!this.mayRun(key) || !this.needsWork(key)) {
        // Settled without a worker slot or a token (a restart over thousands of keys already right must
        // not take thousands / qps seconds).
        this.queue.delete(key);
        continue;
      }
      if (this.active.size >= this.concurrency || !this.takeToken()) break;
      this.queue.delete(key);
      this.start(key);
    }
    this.checkIdle();
  }

  private takeToken(): boolean {
    const waitMs = this.bucket.take(this.scheduler.now());
    if (waitMs === 0) return true;
    this.refillTimer ??= this.scheduler.schedule(() => {
      this.refillTimer = undefined;
      this.pump();
    }, waitMs);
    return false;
  }

  private start(key: string): void {
    const run = new AbortController();
    this.active.set(key, run);
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    // A synchronous throw from `work` is a failed run like any other.
    void Promise.resolve()
      .then(() => this.work(key, { key, signal: run.signal, attempt }))
      .then(
        (result) => this.succeeded(key, result),
        (error: unknown) => this.failed(key, error, attempt),
      )
      .finally(() => this.finish(key));
  }

  private succeeded(key: string, result: WorkResult): void {
    this.counters.succeeded++;
    this.attempts.delete(key);
    if (this.stopped) return;
    const after = result?.requeueAfterMs;
    if (typeof after === 'number' && Number.isFinite(after) && after >= 0) {
      this.counters.requeues++;
      this.schedule(key, 'requeue', after);
    }
  }

  private failed(key: string, error: unknown, attempt: number): void {
    this.counters.failed++;
    if (this.stopped) return;
    const retryable = this.opts.retryable?.(error) ?? true;
    if (!retryable || attempt >= (this.opts.maxAttempts ?? Infinity)) {
      this.counters.givenUp++;
      this.attempts.delete(key);
      this.opts.onFailure?.({ key, error, attempt, retryInMs: undefined });
      return;
    }
    this.attempts.set(key, attempt);
    this.counters.retries++;
    // A server's Retry-After is a floor: retrying sooner would only be refused again.
    const delay = Math.max(
      jitteredDelay(backoffDelay(attempt, this.opts.backoff), this.opts.backoff),
      this.opts.minRetryDelayMs?.(error) ?? 0,
    );
    this.schedule(key, 'retry', delay);
    this.opts.onFailure?.({ key, error, attempt, retryInMs: delay });
  }

  private schedule(key: string, kind: Timer['kind'], delayMs: number): void {
    this.cancelTimer(key);
    const subscription = this.scheduler.schedule(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    // A scheduler may run a zero delay synchronously: the timer is then already spent.
    if (!subscription.closed) this.timers.set(key, { kind, subscription });
  }

  private finish(key: string): void {
    this.active.delete(key);
    if (this.dirtyWhileActive.delete(key)) this.add(key);
    this.pump();
  }

  private checkIdle(): void {
    if (this.queue.size > 0 || this.active.size > 0) return;
    for (const t of this.timers.values()) if (t.kind === 'retry') return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
