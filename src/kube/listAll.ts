// A paginated LIST through client-node's own HTTP stack and authentication, keeping objects as raw JSON.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, requestJson, type RequestOptions } from './request.js';
import { PaginationError } from './paginationError.js';

/** The items (as the server sent them, not yet admitted) and the resourceVersion of a complete LIST. */
export interface ListResult {
  readonly items: unknown[];
  readonly resourceVersion: string;
}

/** How to LIST. */
export interface ListOptions {
  readonly query: Record<string, string | undefined>;
  readonly pageSize: number;
  /** Pages at most, over every restart of one LIST. */
  readonly maxPages: number;
  /** Bounds on each page's request (its signal also ends the LIST between pages). */
  readonly request?: RequestOptions;
}

/**
 * LISTs every page of `path` as raw JSON, items exactly as sent (they usually omit `kind`/`apiVersion`).
 * @throws ApiError for a non-2xx answer (a 410 on a continue token restarts the LIST from the start);
 * an Error for an answer that is not a list; a PaginationError for pages that would not end.
 */
export async function listAll(kc: KubeConfig, path: string, opts: ListOptions): Promise<ListResult> {
  const { query, pageSize } = opts;
  let pages = 0;
  for (let restarts = 0; ; restarts++) {
    const items: unknown[] = [];
    // A server that hands out a token twice would have us page for ever.
    const tokens = new Set<string>();
    let cont: string | undefined;
    let rv = '';
    try {
      do {
        if (cont !== undefined) {
          if (tokens.has(cont)) throw new PaginationError(path, pages, cont, 'repeatedContinue');
          if (pages >= opts.maxPages) throw new PaginationError(path, pages, cont, 'tooManyPages');
          tokens.add(cont);
        }
        pages++;
        const page = await requestJson(kc, 'GET', path, { ...query, limit: String(pageSize), continue: cont }, undefined, opts.request);
        const list = listPage(path, page);
        // A loop, not push(...items): a page of 200 000 items would exceed the argument limit.
        for (const item of list.items) items.push(item);
        rv = list.resourceVersion ?? rv;
        cont = list.continue;
      } while (cont !== undefined);
      return { items, resourceVersion: rv };
    } catch (e) {
      // A continue token that outlived the server's history: start over, a bounded number of times.
      if (e instanceof ApiError && e.statusCode === 410 && cont !== undefined && restarts < 3) continue;
      throw e;
    }
  }
}

/** The parts of one page rxkrt reads, checked: a page of another shape fails the LIST with a clear error. */
function listPage(path: string, page: unknown): { items: unknown[]; resourceVersion?: string; continue?: string } {
  const p = page as { metadata?: { resourceVersion?: unknown; continue?: unknown } | null; items?: unknown } | null | undefined;
  const fail = (what: string): never => {
    throw new Error(`LIST ${path}: the answer is not a list (${what})`);
  };
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return fail('not an object');
  if (p.items !== undefined && p.items !== null && !Array.isArray(p.items)) return fail('items is not an array');
  const md = p.metadata ?? {};
  if (typeof md !== 'object') return fail('metadata is not an object');
  if (md.resourceVersion !== undefined && typeof md.resourceVersion !== 'string') return fail('metadata.resourceVersion is not a string');
  if (md.continue !== undefined && typeof md.continue !== 'string') return fail('metadata.continue is not a string');
  return {
    items: (p.items as unknown[] | null | undefined) ?? [],
    resourceVersion: md.resourceVersion,
    continue: md.continue || undefined,
  };
}
