// One WATCH at a time over client-node's `Watch`, and what its endings mean to the informer's state machine.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
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

/** Opening a watch ends the one before it; closing ends the current one. Late callbacks of old ones are dropped. */
export class WatchConnection {
  private readonly watcher: Watch;
  private generation = 0;
  private abort: AbortController | undefined;

  constructor(
    kc: KubeConfig,
    private readonly path: string,
    private readonly handlers: WatchHandlers,
  ) {
    this.watcher = new Watch(kc);
  }

  open(query: Record<string, string | boolean | undefined>): void {
    this.close();
    const generation = ++this.generation;
    const current = (): boolean => generation === this.generation;
    this.watcher
      .watch(
        this.path,
        query,
        (type: string, object: unknown) => {
          if (current()) this.handlers.event(type, object);
        },
        (err: unknown) => {
          if (!current()) return;
          this.abort = undefined;
          this.handlers.done(err);
        },
      )
      .then(
        // client-node resolves once the server has answered; a failed answer has called `done` by then.
        (abort) => {
          if (!current()) abort.abort();
          else {
            this.abort = abort;
            this.handlers.opened();
          }
        },
        (err: unknown) => {
          if (current()) this.handlers.done(err);
        },
      );
  }

  close(): void {
    this.generation++;
    const abort = this.abort;
    this.abort = undefined;
    abort?.abort();
  }
}

/** The machine input for a watch that ended (`done`). */
export function watchEndInput(err: unknown): InformerInput {
  const status = (err as { statusCode?: number } | null | undefined)?.statusCode;
  if (err === null || err === undefined) return { kind: 'watchClosed' };
  if (status === 410) return { kind: 'watchExpired' };
  // client-node gives up on a watch that sent nothing for a while: a quiet resource, not a failure.
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
