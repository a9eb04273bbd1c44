// The `/scale` subresource: a workload seen as an autoscaling/v1 Scale, and writes of its `spec.replicas`.
import { isJsonObject, objectField, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { badRequest, conflict, invalid, notFound, StatusError } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { applyPatch, type PatchType } from '../patch/applyPatch.js';
import { patchSchemaFor } from '../patch/patchStrategies.js';
import { selectorString } from '../selectors/selectorString.js';
import type { ServerState } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';
import { present } from './listOptions.js';
import { updateObject } from './updateObject.js';
import type { WriteOptions } from './writeOptions.js';

/**
 * A workload as an autoscaling/v1 `Scale`: its identity, `spec.replicas`, `status.replicas` and the selector as text
 * (`status.selector`), which is what HPAs and `kubectl scale` read.
 */
export function scaleOf(obj: StoredObject): JsonObject {
  const spec = objectField(obj, 'spec');
  const status = objectField(obj, 'status');
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  const metadata: JsonObject = { name, namespace, uid, resourceVersion, creationTimestamp };
  if (namespace === undefined) delete metadata.namespace;
  const replicas = typeof spec?.replicas === 'number' ? spec.replicas : 0;
  const selector = selectorString(spec?.selector);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    // ScaleSpec.replicas is omitted when zero, ScaleStatus.replicas never is: their JSON tags differ.
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: typeof status?.replicas === 'number' ? status.replicas : 0, ...(selector ? { selector } : {}) },
  };
}

/**
 * `GET …/{name}/scale`.
 *
 * @throws StatusError `404` when the object does not exist.
 */
export function readScale(state: ServerState, rt: ResourceType, namespace: string | undefined, name: string): JsonObject {
  const obj = state.store.get(rt.storageKey, namespace, name);
  if (!obj) throw notFound(rt.plural, name, rt.group);
  return scaleOf(obj);
}

/**
 * `PUT …/{name}/scale`: sets the workload's `spec.replicas` from a Scale body (which bumps its generation, as any
 * spec change does) and answers the new Scale. A non-empty `metadata.resourceVersion` in the body must match.
 *
 * @throws StatusError `404`; `400` for a body that is not a Scale of this object; `409 Conflict` for a stale
 *   resourceVersion; `422 Invalid` for replicas that are not a non-negative integer.
 */
export function updateScale(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: WriteOptions,
): JsonObject {
  const live = state.store.get(rt.storageKey, namespace, name);
  if (!live) throw notFound(rt.plural, name, rt.group);
  if (!isJsonObject(body)) throw badRequest('the request body must be a JSON object');
  if (body.kind !== undefined && body.kind !== 'Scale')
    throw badRequest(`a scale request must be a Scale, got kind ${JSON.stringify(body.kind)}`);
  const meta = objectField(body, 'metadata') ?? {};
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  }
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== null && rv !== '' && String(rv) !== live.metadata.resourceVersion) {
    throw conflict(rt.plural, name, rt.group);
  }
  const replicas = objectField(body, 'spec')?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0 || replicas > 2 ** 31 - 1) {
    const message = `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`;
    throw invalid('Scale', name, [{ field: 'spec.replicas', message }], 'autoscaling');
  }
  const next = present(structuredClone(live), rt) as JsonObject;
  next.spec = { ...(objectField(next, 'spec') ?? {}), replicas };
  // The resourceVersion was checked above against the object read in this same synchronous step.
  delete (next.metadata as JsonObject).resourceVersion;
  return scaleOf(updateObject(state, rt, namespace, name, next, { ...opts, subresource: 'scale' }));
}

/**
 * `PATCH …/{name}/scale`: a JSON, merge or strategic merge patch of the Scale (what `kubectl scale` sends), then
 * {@link updateScale}.
 *
 * @throws StatusError `415` for server-side apply, which this server does not take on `/scale`; the failures of
 *   {@link updateScale}.
 */
export function patchScale(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  type: PatchType,
  body: JsonValue | undefined,
  opts: WriteOptions,
): JsonObject {
  if (type === 'apply') {
    throw new StatusError(415, 'UnsupportedMediaType', `server-side apply on ${rt.plural}/scale is not supported by this server`);
  }
  if (body === undefined) throw badRequest('the patch body is empty');
  const patched = applyPatch(type, readScale(state, rt, namespace, name), body, patchSchemaFor('autoscaling', 'Scale'));
  return updateScale(state, rt, namespace, name, patched, opts);
}
