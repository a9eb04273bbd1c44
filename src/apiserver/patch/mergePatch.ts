// JSON merge patch (RFC 7386), also used for strategic merge patch (see applyPatch.ts for why that is enough).
import { cloneJson, isJsonObject, type JsonValue } from '../apimachinery/json.js';

/**
 * Applies an RFC 7386 merge patch and returns a new value; `target` is never mutated.
 * An object patch merges key by key (`null` deletes a key); anything else replaces the target whole,
 * arrays included.
 *
 * @example applyMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }) // { a: 1, b: { d: 3 } }
 */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return cloneJson(patch);
  // Untouched members are shared with `target`, not copied: callers that mutate the result clone it first.
  const result = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = value === undefined ? undefined : applyMergePatch(result[key], value);
  }
  return result;
}
