// Discovery: which resource of a group/version serves a kind, so an informer need not guess its plural.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, requestJson, type RequestOptions } from './request.js';
import { collectionPath, type ResourceRef } from './resourcePath.js';

interface DiscoveredResource {
  readonly name?: unknown;
  readonly kind?: unknown;
}

/**
 * The plural under which the server serves `kind` in `apiVersion` (from `GET /api/v1` or `/apis/G/V`),
 * or undefined when the server has no such group/version or no such kind in it. With `plural`, only that
 * resource counts: the caller named it and discovery only confirms it exists.
 * @throws whatever the request throws but a 404.
 */
export async function discoverPlural(
  kc: KubeConfig,
  apiVersion: string,
  kind: string,
  plural: string | undefined,
  request?: RequestOptions,
): Promise<string | undefined> {
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  let list: unknown;
  try {
    list = await requestJson(kc, 'GET', path, {}, undefined, request);
  } catch (e) {
    if (e instanceof ApiError && e.statusCode === 404) return undefined;
    throw e;
  }
  const resources = (list as { resources?: unknown } | null | undefined)?.resources;
  if (!Array.isArray(resources)) return undefined;
  for (const r of resources as Array<DiscoveredResource | null>) {
    // `pods/status` serves kind Pod too: a subresource is never the collection.
    if (r === null || typeof r !== 'object' || typeof r.name !== 'string' || r.name.includes('/') || r.kind !== kind) continue;
    if (plural === undefined || r.name === plural) return r.name;
  }
  return undefined;
}

/** Where a resource is served: the guessed (or given) path until discovery says otherwise. */
export class ResourceLocation {
  /** The collection path LISTs and WATCHes go to. */
  path: string;

  constructor(private readonly ref: ResourceRef) {
    this.path = collectionPath(ref);
  }

  /**
   * Asks discovery where the kind is served: `moved` when at another path than the current one (now taken),
   * `same` when at this one, `missing` when the server does not serve it.
   */
  async locate(kc: KubeConfig, request?: RequestOptions): Promise<'moved' | 'same' | 'missing'> {
    const plural = await discoverPlural(kc, this.ref.apiVersion, this.ref.kind, this.ref.plural, request);
    if (plural === undefined) return 'missing';
    const path = collectionPath({ ...this.ref, plural });
    if (path === this.path) return 'same';
    this.path = path;
    return 'moved';
  }
}

/** A 404 on a LIST, turned into an error that names the kind the server does not serve; anything else as it is. */
export function explainNotFound(error: unknown, ref: ResourceRef): unknown {
  if (!(error instanceof ApiError) || error.statusCode !== 404) return error;
  return new ApiError(404, `the server has no resource for apiVersion=${ref.apiVersion} kind=${ref.kind} (${error.message})`, error.reason);
}
