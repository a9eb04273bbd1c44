// One HTTP request to the API server through client-node's own HTTP stack and authentication.
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { HttpMethod, IsomorphicFetchHttpLibrary, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { RequestTimeoutError } from './requestTimeoutError.js';
import { ApiError } from './apiError.js';
import { parseRetryAfter } from './retryAfter.js';

export { ApiError };

const http = new IsomorphicFetchHttpLibrary();

/** Bounds on one request. */
export interface RequestOptions {
  /** Aborts the request (its promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /** Aborts the request with a `RequestTimeoutError` when no complete answer came in this long. Default: no limit. */
  readonly timeoutMs?: number;
  /** Where the timeout is scheduled. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** The `Accept` header. Default `application/json`. */
  readonly accept?: string;
}

/**
 * Sends a request and parses the JSON answer. Objects stay raw JSON (client-node's typed APIs would turn
 * timestamps into Dates, while watch events stay plain), so every object rxkrt sees has one shape.
 * @throws ApiError for a non-2xx answer; whatever the transport throws for network failures.
 */
export async function requestJson(
  kc: KubeConfig,
  method: 'GET' | 'PATCH' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  query: Record<string, string | undefined> = {},
  body?: { contentType: string; value: unknown },
  opts: RequestOptions = {},
): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the KubeConfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const ctx = new RequestContext(url.toString(), HttpMethod[method]);
  ctx.setHeaderParam('Accept', opts.accept ?? 'application/json');
  if (body !== undefined) {
    ctx.setHeaderParam('Content-Type', body.contentType);
    ctx.setBody(JSON.stringify(body.value));
  }
  const guard = guardOf(opts, method, `${url.pathname}${url.search}`);
  // client-node 1.x has no setSignal: the race below still ends the wait, if not the socket.
  if (typeof (ctx as Partial<Pick<RequestContext, 'setSignal'>>).setSignal === 'function') ctx.setSignal(guard.signal);
  let resp: Awaited<ReturnType<typeof sendRequest>>;
  let text: string;
  try {
    await Promise.race([kc.applySecurityAuthentication(ctx), guard.aborted]);
    resp = await Promise.race([sendRequest(ctx), guard.aborted]);
    text = await Promise.race([resp.body.text(), guard.aborted]);
  } finally {
    guard.release();
  }
  if (resp.httpStatusCode < 200 || resp.httpStatusCode > 299) {
    let message = text.slice(0, 300);
    let reason: string | undefined;
    let details: { retryAfterSeconds?: unknown } | undefined;
    try {
      const status = JSON.parse(text) as { message?: string; reason?: string; details?: { retryAfterSeconds?: unknown } } | null;
      message = status?.message ?? message;
      reason = status?.reason;
      details = status?.details;
    } catch {
      // not a Status body: keep the raw text
    }
    const retryAfterMs = parseRetryAfter(resp.headers['retry-after'], resp.headers['date'], details?.retryAfterSeconds);
    const where = `${method} ${url.pathname}${url.search}`;
    throw new ApiError(resp.httpStatusCode, `${where}: ${resp.httpStatusCode} ${message}`, reason, retryAfterMs);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function sendRequest(ctx: RequestContext) {
  return http.send(ctx).toPromise();
}

/** One AbortController for a request: aborted by the caller's signal or by the timeout, whichever comes first. */
function guardOf(
  opts: RequestOptions,
  method: string,
  path: string,
): { signal: AbortSignal; aborted: Promise<never>; release: () => void } {
  const controller = new AbortController();
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
  });
  // Nobody may be racing it at the moment it fires (between two awaits): that must not be an unhandled rejection.
  aborted.catch(() => {});
  const onCallerAbort = (): void => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onCallerAbort();
  else opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : (opts.scheduler ?? asyncScheduler).schedule(
          () => controller.abort(new RequestTimeoutError(method, path, opts.timeoutMs!)),
          opts.timeoutMs,
        );
  return {
    signal: controller.signal,
    aborted,
    release: () => {
      timer?.unsubscribe();
      opts.signal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
