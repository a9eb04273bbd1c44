// PUT (and the last step of every PATCH): optimistic concurrency, status rules, generation, no-op writes.
import { isJsonObject, jsonEqual, type JsonObject } from '../apimachinery/json.js';
import { badRequest, conflict, invalid, notFound } from '../apimachinery/statusError.js';
import { formatTime } from '../apimachinery/clock.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { encodeOwners, fieldScope, readOwners, recordUpdate } from '../patch/managedFields.js';
import type { ServerState } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';
import { removeNow } from './deleteObject.js';
import { checkTypeMeta, SERVER_METADATA, specChanged } from './objectMeta.js';
import { validateMetadata } from './validateMetadata.js';
import type { WriteOptions } from './writeOptions.js';

/**
 * Replaces an object (`subresource = ''`) or its status (`'status'`) and returns the stored result.
 *
 * - A non-empty `metadata.resourceVersion` in the body must equal the stored one (else `409 Conflict`);
 *   an empty one makes the write unconditional.
 * - Through the main resource, `.status` is ignored when the kind has a status subresource; through
 *   `/status`, everything but `.status` is ignored.
 * - `generation` grows when anything outside `metadata` and `status` changes.
 * - A write that changes nothing keeps the stored object: no new resourceVersion, no watch event.
 * - Emptying `finalizers` of an object being deleted removes it (`DELETED`).
 *
 * @throws StatusError `404`, `409 Conflict`, `400` (name/namespace contradict the URL), `422`.
 */
export function updateObject(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: WriteOptions & { subresource?: string },
): StoredObject {
  const subresource = opts.subresource ?? '';
  const before = state.store.get(rt.storageKey, namespace, name);
  if (!before) throw notFound(rt.plural, name, rt.group);
  const obj = checkTypeMeta(rt, body, name);
  checkPreconditions(rt, name, namespace, obj.metadata, before);
  const hooks = state.hooks.get(rt.storageKey);
  // Before the generation is compared: a body that leaves a defaulted field out does not change the spec.
  hooks?.defaults?.(obj, before, state);

  const next = (subresource === 'status' ? statusOnly(before, obj) : mainOnly(rt, before, obj)) as StoredObject;
  delete (next.metadata as JsonObject).resourceVersion; // the store stamps a new one
  hooks?.prepare?.(next, before, state);
  validateMetadata(rt, next);
  hooks?.validate?.(next, before, rt);
  const owners =
    opts.ownership?.(before, next) ??
    recordUpdate(readOwners(before), before, next, {
      manager: opts.manager,
      subresource,
      apiVersion: rt.groupVersion,
      time: formatTime(state.clock.now()),
      scope: fieldScope(rt, subresource),
    });
  next.metadata.managedFields = encodeOwners(owners);

  if (sameContent(before, next)) return before;
  const finalizers = next.metadata.finalizers;
  if (next.metadata.deletionTimestamp && !(Array.isArray(finalizers) && finalizers.length > 0)) {
    return opts.dryRun ? before : removeNow(state, rt, next);
  }
  if (opts.dryRun) return { ...next, metadata: { ...next.metadata, resourceVersion: before.metadata.resourceVersion } };
  const committed = state.store.put(rt.storageKey, next);
  hooks?.afterWrite?.(committed, state);
  return committed;
}

function checkPreconditions(rt: ResourceType, name: string, namespace: string | undefined, meta: JsonObject, before: StoredObject): void {
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  }
  if (rt.namespaced && typeof meta.namespace === 'string' && meta.namespace !== '' && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== null && rv !== '' && String(rv) !== before.metadata.resourceVersion) {
    throw conflict(rt.plural, name, rt.group);
  }
  if (typeof meta.uid === 'string' && meta.uid !== '' && meta.uid !== before.metadata.uid) {
    throw conflict(
      rt.plural,
      name,
      rt.group,
      `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${before.metadata.uid}`,
    );
  }
}

// `/status`: the stored object with the body's status; metadata stays as stored (ResetObjectMetaForStatus).
function statusOnly(before: StoredObject, body: JsonObject): JsonObject {
  const next = structuredClone(before) as JsonObject;
  if (body.status === undefined) delete next.status;
  else next.status = body.status;
  return next;
}

// Main resource: the body, with server-owned metadata carried over and status kept when it has its own subresource.
function mainOnly(rt: ResourceType, before: StoredObject, body: JsonObject & { metadata: JsonObject }): JsonObject {
  const next = body;
  const meta = next.metadata;
  for (const f of SERVER_METADATA) {
    if (before.metadata[f] !== undefined) meta[f] = structuredClone(before.metadata[f]!);
    else delete meta[f];
  }
  meta.name = before.metadata.name;
  if (rt.namespaced) meta.namespace = before.metadata.namespace!;
  else delete meta.namespace;
  if (rt.statusSubresource) {
    if (before.status !== undefined) next.status = structuredClone(before.status);
    else delete next.status;
  }
  if (before.metadata.deletionTimestamp) {
    const old = new Set(Array.isArray(before.metadata.finalizers) ? before.metadata.finalizers : []);
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).filter((f) => !old.has(f));
    if (added.length) {
      throw invalid(
        rt.kind,
        before.metadata.name,
        [{ field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted' }],
        rt.group,
      );
    }
  }
  meta.generation = before.metadata.generation + (specChanged(rt, before, next) ? 1 : 0);
  return next;
}

// Equal up to resourceVersion and managedFields timestamps: such a write is a no-op on a real server.
function sameContent(before: StoredObject, next: StoredObject): boolean {
  const norm = (o: StoredObject): JsonObject => {
    const { resourceVersion: _rv, managedFields, ...meta } = o.metadata;
    const owners = Array.isArray(managedFields) ? managedFields.map((e) => (isJsonObject(e) ? { ...e, time: '' } : e)) : [];
    return { ...o, metadata: { ...meta, managedFields: owners } };
  };
  return jsonEqual(norm(before), norm(next));
}
