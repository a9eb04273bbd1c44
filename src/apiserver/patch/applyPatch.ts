// Picks the patch algorithm from the request's Content-Type and applies the non-apply kinds.
import { isJsonObject, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { StatusError } from '../apimachinery/statusError.js';
import { applyJsonPatch } from './jsonPatch.js';
import { applyMergePatch } from './mergePatch.js';
import type { PatchSchema } from './patchStrategies.js';
import { applyStrategicMergePatch } from './strategicMergePatch.js';

/** The four patch kinds Kubernetes accepts. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const BY_MEDIA_TYPE: Partial<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/**
 * The patch kind named by a `Content-Type` header (parameters such as `; charset=utf-8` ignored).
 *
 * @throws StatusError `415 UnsupportedMediaType` for anything else, as a real server answers.
 */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = BY_MEDIA_TYPE[media];
  if (!type) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${Object.keys(BY_MEDIA_TYPE).join(', ')}`,
    );
  }
  return type;
}

/**
 * Applies a JSON, merge or strategic merge patch to `live` and returns the patched copy. A strategic merge
 * patch uses `schema`, the kind's merge keys and strategies (see {@link applyStrategicMergePatch}); callers
 * refuse it for custom resources, as a real server does.
 *
 * @throws StatusError `400` for a body of the wrong shape, `422` when a JSON patch operation fails, and the
 *   strategic merge patch's own errors.
 */
export function applyPatch(type: Exclude<PatchType, 'apply'>, live: JsonObject, patch: JsonValue, schema: PatchSchema): JsonObject {
  let out: JsonValue;
  if (type === 'json') out = applyJsonPatch(live, patch);
  else if (!isJsonObject(patch)) throw new StatusError(400, 'BadRequest', `a ${type} merge patch must be a JSON object`);
  else if (type === 'strategic') out = applyStrategicMergePatch(live, patch, schema);
  else out = applyMergePatch(live, patch);
  if (!isJsonObject(out)) throw new StatusError(422, 'Invalid', 'the patch replaced the object with a non-object');
  return out;
}
