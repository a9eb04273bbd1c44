// Builds the RFC 7386 merge patch that turns one JSON value into another.
import { equals } from '../core/equals.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The merge patch from `from` to `to`: changed keys carry their new value, removed keys are `null`,
 * nested objects are diffed recursively, arrays and scalars are replaced whole (merge patch cannot do better).
 * Returns undefined when nothing changed.
 */
export function mergePatchOf(from: unknown, to: unknown): unknown {
  if (equals(from, to)) return undefined;
  if (!isPlainObject(from) || !isPlainObject(to)) return to === undefined ? null : to;
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!(k in to) || to[k] === undefined) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (v === undefined) continue;
    const sub = mergePatchOf(from[k], v);
    if (sub !== undefined) patch[k] = sub;
  }
  return patch;
}
