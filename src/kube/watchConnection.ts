// One WATCH at a time over client-node's `Watch`, bounded by a timeout of our own, and what its endings mean.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { SchedulerLike, Subscription } from 'rxjs';
import { ApiError } from './apiError.js';
import { parseRetryAfter, retryAfterOf } from './retryAfter.js';
import type { InformerInput } from './informerMachine.js';

/** What a watch connection reports; callbacks of a watch that was closed or replaced are never made. */
export interface WatchHandlers {
  /** The server answered 200: the stream is open. */
  opened(): void;
  /** One decoded line of the stream, as sent. */
  event(type: string, object: unknown): void;
  /** The stream ended: `null`/`undefined` when it ended normally, else what failed. */
  done(err: unknown): void;
}

/** How a watch is bounded in time. */
export interface WatchTiming {
  /** Where the timeout runs (virtual in tests). */
  readonly scheduler: SchedulerLike;
  /** A watch that gets no answer, or no line, for this long is ended as a `TimeoutError`. */
  readonly timeoutMs: number;
  /** Extra request headers (an `Accept` asking for metadata only). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The longest delay a Node timer takes; beyond it `setTimeout` fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error a watch ends with when our timeout cuts it (named as client-node names its own, so it reads alike). */
export function watchTimeoutError(path: string, ms: number): Error {
  const error = new Error(`watch of ${path} sent nothing for ${ms} ms`);
  error.name = 'TimeoutError';
  return error;
}

/** Opening a watch ends the one before it; closing ends the current one. Late callbacks of old ones are dropped. */
export class WatchConnection {
  private readonly watcher: Watch;
  private generation = 0;
  private abort: AbortController | undefined;
  private timer: Subscription | undefined;
  /** When the current watch last showed a sign of life (scheduler time). */
  private lastActivity = 0;
  private path = '';

  constructor(
    kc: KubeConfig,
    private readonly handlers: WatchHandlers,
    private readonly timing: WatchTiming,
  ) {
    this.watcher = new Watch(kc);
    // client-node's own inactivity timer is a real `setTimeout` no scheduler can drive, so ours decides.
    // Theirs stays as a far backstop: it still ends a request our timer gave up on before its headers came
    // (only then do we hold its AbortController).
    (this.watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs = Math.min(MAX_TIMER_MS, 10 * timing.timeoutMs);
    if (timing.headers !== undefined) this.watchWithHeaders(timing.headers);
  }

  open(path: string, query: Record<string, string | boolean | undefined>): void {
    this.close();
    this.path = path;
    const generation = ++this.generation;
    const current = (): boolean => generation === this.generation;
    this.touch();
    this.armTimer(generation, this.timing.timeoutMs);
    this.watcher
      .watch(
        path,
        query,
        (type: string, object: unknown) => {
          if (!current()) return;
          this.touch();
          this.handlers.event(type, object);
        },
        (err: unknown) => {
          if (!current()) return;
          this.end();
          this.handlers.done(err);
        },
      )
      .then(
        // client-node resolves once the server has answered; a failed answer has called `done` by then.
        (abort) => {
          if (!current()) abort.abort();
          else {
            this.abort = abort;
            this.touch();
            this.handlers.opened();
          }
        },
        (err: unknown) => {
          if (!current()) return;
          this.end();
          this.handlers.done(err);
        },
      );
  }

  close(): void {
    this.generation++;
    const abort = this.end();
    abort?.abort();
  }

  private end(): AbortController | undefined {
    this.timer?.unsubscribe();
    this.timer = undefined;
    const abort = this.abort;
    this.abort = undefined;
    return abort;
  }

  private touch(): void {
    this.lastActivity = this.timing.scheduler.now();
  }

  /**
   * One timer per watch, not one per line: when it fires it looks at the last sign of life and waits out
   * the rest, so a busy watch costs a clock read per line instead of a timer reset.
   */
  private armTimer(generation: number, ms: number): void {
    this.timer = this.timing.scheduler.schedule(() => {
      this.timer = undefined;
      if (generation !== this.generation) return;
      const quiet = this.timing.scheduler.now() - this.lastActivity;
      if (quiet < this.timing.timeoutMs) {
        this.armTimer(generation, this.timing.timeoutMs - quiet);
        return;
      }
      this.close();
      this.handlers.done(watchTimeoutError(this.path, this.timing.timeoutMs));
    }, ms);
  }

  /** client-node's `Watch` has no header option: its request context is where the headers are set. */
  private watchWithHeaders(headers: Readonly<Record<string, string>>): void {
    const config = this.watcher.config;
    const withHeaders = Object.create(config) as KubeConfig;
    withHeaders.applySecurityAuthentication = async (ctx) => {
      await config.applySecurityAuthentication(ctx);
      for (const [name, value] of Object.entries(headers)) ctx.setHeaderParam(name, value);
    };
    this.watcher.config = withHeaders;
  }
}

/** The machine input for a watch that ended (`done`). */
export function watchEndInput(err: unknown): InformerInput {
  const status = (err as { statusCode?: number } | null | undefined)?.statusCode;
  if (err === null || err === undefined) return { kind: 'watchClosed' };
  if (status === 410) return { kind: 'watchExpired' };
  // A watch that sent nothing for a while (our timeout, or client-node's backstop): a quiet resource, not a failure.
  if ((err as { name?: string }).name === 'TimeoutError') return { kind: 'watchClosed' };
  // The server refuses where we ask to watch from (a resourceVersion it cannot read): only a LIST helps.
  if (status === 400) return { kind: 'watchRefused', error: err };
  return { kind: 'watchFailed', error: err, retryAfterMs: retryAfterOf(err) };
}

/** The machine input for an in-stream ERROR event (a Status as the server sent it: it may lack any field). */
export function watchErrorInput(object: unknown): InformerInput {
  const status = object as
    { code?: unknown; message?: unknown; reason?: unknown; details?: { retryAfterSeconds?: unknown } } | null | undefined;
  const code = typeof status?.code === 'number' ? status.code : 500;
  if (code === 410) return { kind: 'watchExpired' };
  const message = typeof status?.message === 'string' ? status.message : JSON.stringify(object);
  const reason = typeof status?.reason === 'string' ? status.reason : undefined;
  const error = new ApiError(
    code,
    `watch error: ${message}`,
    reason,
    parseRetryAfter(undefined, undefined, status?.details?.retryAfterSeconds),
  );
  return code === 400 ? { kind: 'watchRefused', error } : { kind: 'watchFailed', error, retryAfterMs: retryAfterOf(error) };
}
