// PATCH: merge, JSON, strategic merge (built-in kinds only) and server-side apply, ending in the update (or create) rules.
import { isJsonObject, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { badRequest, invalid, notFound, StatusError } from '../apimachinery/statusError.js';
import { formatTime } from '../apimachinery/clock.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { applyPatch, type PatchType } from '../patch/applyPatch.js';
import { fieldScope, readOwners, recordApply } from '../patch/managedFields.js';
import { patchSchemaFor } from '../patch/patchStrategies.js';
import { serverSideApply } from '../patch/serverSideApply.js';
import type { ServerState } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';
import { createObject } from './createObject.js';
import { present } from './listOptions.js';
import { updateObject } from './updateObject.js';

/** Options of one PATCH request. */
export interface PatchOptions {
  subresource: string;
  /** `?fieldManager=`: required for apply; recorded for the other patch types. */
  fieldManager?: string;
  /** The manager recorded when `fieldManager` is absent (derived from the User-Agent). */
  defaultManager: string;
  force: boolean;
  dryRun: boolean;
}

/**
 * Patches an object and returns it, with `created` set when an apply created it (HTTP 201).
 *
 * @throws StatusError `404` for a missing object (except apply, which creates), `415` for a strategic merge
 *   patch on a custom resource (as a real server answers), `409` on apply conflicts or stale
 *   resourceVersions carried in the patch, `422` for failing JSON patches or a missing apply fieldManager.
 */
export function patchObject(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  type: PatchType,
  body: JsonValue | undefined,
  opts: PatchOptions,
): { object: StoredObject; created: boolean } {
  if (body === undefined) throw badRequest('the patch body is empty');
  if (type === 'strategic' && rt.custom) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  }
  if (type === 'apply') return apply(state, rt, namespace, name, body, opts);
  const live = state.store.get(rt.storageKey, namespace, name);
  if (!live) throw notFound(rt.plural, name, rt.group);
  const patched = applyPatch(type, present(live, rt), body, patchSchemaFor(rt.group, rt.kind));
  const manager = opts.fieldManager ?? opts.defaultManager;
  return {
    object: updateObject(state, rt, namespace, name, patched, { subresource: opts.subresource, manager, dryRun: opts.dryRun }),
    created: false,
  };
}

function apply(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  body: JsonValue,
  opts: PatchOptions,
): { object: StoredObject; created: boolean } {
  const manager = opts.fieldManager;
  if (!manager) {
    throw invalid('PatchOptions', '', [{ field: 'fieldManager', message: 'Required value: is required for apply patch' }], 'meta.k8s.io');
  }
  if (!isJsonObject(body)) throw badRequest('an apply patch must be an object');
  if (typeof body.apiVersion !== 'string' || typeof body.kind !== 'string') throw badRequest('an apply patch must set apiVersion and kind');
  const applied = structuredClone(body);
  const meta = isJsonObject(applied.metadata) ? applied.metadata : (applied.metadata = {});
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  }
  meta.name = name;
  const stamp = { manager, subresource: opts.subresource, apiVersion: rt.groupVersion, time: formatTime(state.clock.now()) };
  const live = state.store.get(rt.storageKey, namespace, name);

  if (!live) {
    if (opts.subresource) throw notFound(rt.plural, name, rt.group);
    const skeleton: JsonObject = { apiVersion: rt.groupVersion, kind: rt.kind, metadata: namespace ? { name, namespace } : { name } };
    const result = serverSideApply({
      live: skeleton,
      applied,
      manager,
      subresource: '',
      force: opts.force,
      scope: fieldScope(rt, ''),
      owners: [],
    });
    const object = createObject(state, rt, namespace, result.object, {
      manager,
      dryRun: opts.dryRun,
      ownership: (_before, after) => recordApply([], after, result.applied, result.taken, stamp),
    });
    return { object, created: true };
  }
  const result = serverSideApply({
    live: present(live, rt),
    applied,
    manager,
    subresource: opts.subresource,
    force: opts.force,
    scope: fieldScope(rt, opts.subresource),
    owners: readOwners(live),
  });
  const object = updateObject(state, rt, namespace, name, result.object, {
    subresource: opts.subresource,
    manager,
    dryRun: opts.dryRun,
    ownership: (before, after) => recordApply(readOwners(before), after, result.applied, result.taken, stamp),
  });
  return { object, created: false };
}
