// A paginated LIST through client-node's own HTTP stack and authentication, keeping objects as raw JSON.
import { HttpMethod, IsomorphicFetchHttpLibrary, RequestContext, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

/** An HTTP answer other than 2xx, with the Status body's message when there is one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** Objects and the resourceVersion of a complete LIST. */
export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

const http = new IsomorphicFetchHttpLibrary();

/**
 * LISTs every page of `path`. The client-node typed APIs would turn timestamps into Dates, while watch
 * events stay plain JSON; reading raw JSON keeps both kinds of object in one shape.
 * `kind`/`apiVersion`, which list items usually omit, are filled in.
 * @throws ApiError for a non-2xx answer (a 410 on a continue token restarts the LIST from the start).
 */
export async function listAll<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | undefined>,
  typeMeta: { apiVersion: string; kind: string },
  pageSize: number,
): Promise<ListResult<T>> {
  for (let restarts = 0; ; restarts++) {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    try {
      do {
        const page = await getJson(kc, path, { ...query, limit: String(pageSize), continue: cont });
        const list = page as { metadata?: { resourceVersion?: string; continue?: string }; items?: T[] };
        for (const item of list.items ?? []) {
          if (item.kind === undefined || item.apiVersion === undefined) items.push({ ...item, apiVersion: typeMeta.apiVersion, kind: typeMeta.kind });
          else items.push(item);
        }
        rv = list.metadata?.resourceVersion ?? rv;
        cont = list.metadata?.continue || undefined;
      } while (cont !== undefined);
      return { items, resourceVersion: rv };
    } catch (e) {
      // A continue token that outlived the server's history: start over, a bounded number of times.
      if (e instanceof ApiError && e.statusCode === 410 && cont !== undefined && restarts < 3) continue;
      throw e;
    }
  }
}

async function getJson(kc: KubeConfig, path: string, query: Record<string, string | undefined>): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the KubeConfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  const ctx = new RequestContext(url.toString(), HttpMethod.GET);
  ctx.setHeaderParam('Accept', 'application/json');
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
    throw new ApiError(resp.httpStatusCode, `GET ${url.pathname}${url.search}: ${resp.httpStatusCode} ${message}`, reason);
  }
  return JSON.parse(text) as unknown;
}
