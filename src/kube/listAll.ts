// A paginated LIST through client-node's own HTTP stack and authentication, keeping objects as raw JSON.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { ApiError, requestJson } from './request.js';

/** Objects and the resourceVersion of a complete LIST. */
export interface ListResult<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

/**
 * LISTs every page of `path` as raw JSON. `kind`/`apiVersion`, which list items usually omit, are filled in.
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
        const page = await requestJson(kc, 'GET', path, { ...query, limit: String(pageSize), continue: cont });
        const list = page as { metadata?: { resourceVersion?: string; continue?: string }; items?: T[] };
        for (const item of list.items ?? []) {
          if (item.kind === undefined || item.apiVersion === undefined)
            items.push({ ...item, apiVersion: typeMeta.apiVersion, kind: typeMeta.kind });
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
