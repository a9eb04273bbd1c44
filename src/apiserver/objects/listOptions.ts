// Query parameters of list and watch requests, parsed and checked once.
import { isJsonObject, type JsonObject } from '../apimachinery/json.js';
import { queryBool, queryInt } from '../apimachinery/queryParams.js';
import { badRequest } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { COMMON_SELECTABLE_FIELDS, parseFieldSelector, selectableFieldValues, type FieldSelector } from '../selectors/fieldSelector.js';
import { parseLabelSelector, type LabelSelector } from '../selectors/labelSelector.js';
import { validateListOptions } from './validateListOptions.js';

/** The list/watch options a request carries (`metav1.ListOptions`). */
export interface ListOptions {
  label: LabelSelector;
  field: FieldSelector;
  limit?: number;
  continueToken?: string;
  /** `undefined` for absent or `""`; `"0"` stays `"0"` ("any version"). */
  resourceVersion?: string;
  resourceVersionMatch?: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  sendInitialEvents: boolean;
}

/**
 * Parses list/watch query parameters for resource `rt`. `watchPath` is the deprecated `/watch/` form, which
 * makes a request a watch as `watch=true` does.
 *
 * @throws StatusError `400` for malformed selectors, limits, timeouts or resourceVersions; `422` for
 *   combinations kube refuses (see {@link validateListOptions}).
 */
export function parseListOptions(rt: ResourceType, params: URLSearchParams, watchPath = false): ListOptions {
  const flag = (name: string): boolean => queryBool(params, name);
  const rv = params.get('resourceVersion') || undefined;
  if (rv !== undefined) parseResourceVersion(rv);
  validateListOptions({
    watch: flag('watch') || watchPath,
    resourceVersion: rv,
    resourceVersionMatch: params.get('resourceVersionMatch') || undefined,
    continueToken: params.get('continue') || undefined,
    sendInitialEvents: params.has('sendInitialEvents') ? flag('sendInitialEvents') : undefined,
    allowWatchBookmarks: flag('allowWatchBookmarks'),
  });
  return {
    label: parseLabelSelector(params.get('labelSelector') ?? ''),
    field: parseFieldSelector(params.get('fieldSelector') ?? '', [...COMMON_SELECTABLE_FIELDS, ...rt.selectableFields]),
    // A real server pages only for a positive limit; zero and negative ones list everything.
    limit: positiveOrUndefined(queryInt(params, 'limit')),
    continueToken: params.get('continue') || undefined,
    resourceVersion: rv,
    resourceVersionMatch: params.get('resourceVersionMatch') || undefined,
    watch: flag('watch'),
    allowWatchBookmarks: flag('allowWatchBookmarks'),
    timeoutSeconds: watchTimeout(queryInt(params, 'timeoutSeconds')),
    sendInitialEvents: flag('sendInitialEvents'),
  };
}

/**
 * A resourceVersion as a number.
 *
 * @throws StatusError `400` unless it is a decimal integer (ours always are) below 2^53.
 */
export function parseResourceVersion(text: string): number {
  if (!/^\d+$/.test(text)) throw badRequest(`resourceVersion: Invalid value: "${text}": must be a decimal integer`);
  const rv = Number(text);
  // Past 2^53 a number no longer names one version: 99999999999999999999999 would read as 1e+23.
  if (!Number.isSafeInteger(rv)) throw badRequest(`resourceVersion: Invalid value: "${text}": out of range`);
  return rv;
}

/** Whether `obj` passes both selectors. */
export function selects(rt: ResourceType, opts: Pick<ListOptions, 'label' | 'field'>, obj: JsonObject): boolean {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const labels = isJsonObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
  // Without field terms nothing reads the field values; building them for every object was most of a LIST.
  return opts.label.matches(labels) && (opts.field.requirements.length === 0 || opts.field.matches(selectableFieldValues(rt, obj)));
}

/** A stored object as served at `rt`'s version: several CRD versions share one stored object. */
export function present<T extends JsonObject>(obj: T, rt: ResourceType): T {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: rt.groupVersion, kind: rt.kind, ...rest } as unknown as T;
}

function positiveOrUndefined(n: number | undefined): number | undefined {
  return n !== undefined && n > 0 ? n : undefined;
}

// Zero means "the server's default" (none here); a negative timeout has already passed, so the watch ends at once.
function watchTimeout(n: number | undefined): number | undefined {
  if (n === undefined || n === 0) return undefined;
  return Math.max(n, 0);
}
