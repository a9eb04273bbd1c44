// The status writer's options, counters and handle.
import type { Observable, SchedulerLike } from 'rxjs';
import type { DebugRegistry } from '../core/types.js';
import type { BackoffPolicy } from './backoff.js';
import type { Gate } from './gate.js';
import type { StatusWriteError } from './statusWriteError.js';

/** How a status writer patches. */
export interface StatusWriterOptions {
  /** Names the writer in errors and debug dumps. Default `StatusWriter[<statuses' name>]`. */
  name?: string;
  /**
   * `merge` (default): an RFC 7386 merge patch guarded by the object's resourceVersion, carrying only the
   * status fields this writer computes (the rule is in `docs/reconciler.md`). `apply`: server-side
   * apply of only those fields under `fieldManager`.
   */
  strategy?: 'merge' | 'apply';
  /** Field manager for server-side apply. Default `rxkrt`. */
  fieldManager?: string;
  /**
   * Server-side apply only: take fields another manager owns (`force=true`). Default false: a conflict is
   * reported (`stats.conflicts`, `errors$` naming the other managers) and the key is left until it changes.
   */
  force?: boolean;
  /** Patches in flight at once. Default 4. */
  concurrency?: number;
  /** Patches started per second at most. Default 50. */
  qps?: number;
  /** Patches that may start at once after a quiet spell. Default `qps`. */
  burst?: number;
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
  /** 409 answers: stale resourceVersions (merge, retried) and field-manager conflicts (apply, reported). */
  conflicts: number;
  /** Retries scheduled (conflicts, 5xx, network). */
  retries: number;
  /** Final failures (non-retryable answers, apply conflicts, or attempts exhausted). */
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
  /** Its counters, a snapshot taken when read. */
  readonly stats: Readonly<StatusWriterStats>;
  /** Final failures, each naming the key (and for apply conflicts the managers that own the fields). */
  readonly errors$: Observable<StatusWriteError>;
  /** Resolves once nothing is queued, in flight or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops the writer, as aborting the `stop` option does: the queue and pending retries are dropped; patches in flight finish. */
  stop(): void;
}
