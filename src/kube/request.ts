// One HTTP request to the API server through client-node's own HTTP stack and authentication.
import { HttpMethod, IsomorphicFetchHttpLibrary, RequestContext, type KubeConfig } from '@kubernetes/client-node';

/** An HTTP answer other than 2xx, with the Status body's message and reason when there is one. */
export class ApiError extends Error {
  /** Always `'ApiError'`. */
  override readonly name = 'ApiError';
  constructor(
    /** The HTTP status code. */
    readonly statusCode: number,
    message: string,
    /** The Status body's `reason` (`NotFound`, `Conflict`, …), when it had one. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

const http = new IsomorphicFetchHttpLibrary();

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
): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the KubeConfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const ctx = new RequestContext(url.toString(), HttpMethod[method]);
  ctx.setHeaderParam('Accept', 'application/json');
  if (body !== undefined) {
    ctx.setHeaderParam('Content-Type', body.contentType);
    ctx.setBody(JSON.stringify(body.value));
  }
  await kc.applySecurityAuthentication(ctx);
  const resp = await http.send(ctx).toPromise();
  const text = await resp.body.text();
  if (resp.httpStatusCode < 200 || resp.httpStatusCode > 299) {
    let message = text.slice(0, 300);
    let reason: string | undefined;
    try {
      const status = JSON.parse(text) as { message?: string; reason?: string };
      message = status.message ?? message;
      reason = status.reason;
    } catch {
      // not a Status body: keep the raw text
    }
    throw new ApiError(resp.httpStatusCode, `${method} ${url.pathname}${url.search}: ${resp.httpStatusCode} ${message}`, reason);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
