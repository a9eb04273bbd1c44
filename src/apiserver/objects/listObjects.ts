// LIST: selectors, consistent pagination with continue tokens, and resourceVersion semantics.
import type { JsonObject } from '../apimachinery/json.js';
import { badRequest, tooLargeResourceVersion } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';
import type { ServerState } from '../state/serverState.js';
import { objectKey, storedNamespace } from '../storage/store.js';
import { parseResourceVersion, present, selects, type ListOptions } from './listOptions.js';

interface ContinueToken {
  rv: number;
  /** The key of the last object of the previous page. */
  after: string;
}

/**
 * Lists objects of `rt` (one namespace, or all when `namespace` is undefined) as a `<Kind>List`.
 *
 * - The list's `metadata.resourceVersion` is the global counter at read time.
 * - `limit` pages the result; later pages (`continue`) are served from the snapshot of the first page,
 *   rewound through the event history, as etcd does. A token older than the history is `410 Expired`.
 *   `remainingItemCount` is set only when no label or field selector narrowed the list, as on a real server.
 * - `resourceVersionMatch=Exact` reads the snapshot at `resourceVersion`; otherwise any
 *   `resourceVersion` not newer than the counter is satisfied by the current state.
 *
 * @throws StatusError `400` for malformed options, `410` for expired tokens, `504` for a resourceVersion from the future.
 */
export function listObjects(state: ServerState, rt: ResourceType, namespace: string | undefined, opts: ListOptions): JsonObject {
  const current = state.store.resourceVersion();
  let atRv = current;
  let after: string | undefined;
  if (opts.continueToken) {
    const token = decodeContinue(opts.continueToken);
    // A forged token must not make the server answer at a version it never reached (clients would watch from it).
    if (token.rv > current) throw invalidContinue();
    state.store.assertReplayable(
      token.rv,
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
    atRv = token.rv;
    after = token.after;
  } else if (opts.resourceVersion !== undefined && opts.resourceVersion !== '0') {
    const rv = parseResourceVersion(opts.resourceVersion);
    // Answered at once, not after kube's ~3 s wait: writes commit synchronously here, so a version the server
    // has not reached yet was never issued, and waiting could only slow the client down.
    if (rv > current) throw tooLargeResourceVersion(rv, current);
    if (opts.resourceVersionMatch === 'Exact') atRv = rv;
  }

  const all =
    atRv === current ? state.store.list(rt.storageKey, namespace, after) : state.store.listAt(rt.storageKey, atRv, namespace, after);
  const keyOf = (o: (typeof all)[number]): string => objectKey(storedNamespace(o), o.metadata.name);
  const filtered = opts.label.requirements.length > 0 || opts.field.requirements.length > 0;
  const limit = opts.limit ?? Infinity;
  let page = all;
  let more = false;
  if (!filtered) {
    if (all.length > limit) {
      page = all.slice(0, limit);
      more = true;
    }
  } else {
    // Test only as far as the page reaches (and one more, to know whether there is a next page).
    page = [];
    for (const o of all) {
      if (!selects(rt, opts, o)) continue;
      if (page.length === limit) {
        more = true;
        break;
      }
      page.push(o);
    }
  }
  const metadata: JsonObject = { resourceVersion: String(atRv) };
  if (more) {
    metadata.continue = encodeContinue({ rv: atRv, after: keyOf(page[page.length - 1]!) });
    // As on a real server: known only when no selector narrowed the list.
    if (!filtered) metadata.remainingItemCount = all.length - page.length;
  }
  return {
    kind: rt.listKind,
    apiVersion: rt.groupVersion,
    metadata,
    items: page.map((o) => (rt.custom ? present(o, rt) : withoutTypeMeta(o))),
  };
}

/**
 * A built-in kind's list item as a real server serves it: without `apiVersion` and `kind`, which only the
 * list carries (custom resources are served as unstructured objects and keep theirs). Clients that hand
 * list items on must fill them in, as client-go's informers leave to their callers.
 */
function withoutTypeMeta(obj: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: token.rv, after: token.after })).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { v?: number; rv?: unknown; after?: unknown };
    if (raw.v === 1 && Number.isSafeInteger(raw.rv) && (raw.rv as number) >= 0 && typeof raw.after === 'string') {
      return { rv: raw.rv as number, after: raw.after };
    }
  } catch {
    /* reported below */
  }
  throw invalidContinue();
}

function invalidContinue(): Error {
  return badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}
