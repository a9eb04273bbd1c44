// JSON values as decoded from request bodies, with small helpers: type guards, structural equality, cloning.

/** Any JSON value, as decoded from a request body. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of two JSON values; key order does not matter. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    // Same key count plus every key of `a` equal in `b` means the key sets are equal.
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy, so callers can mutate the result without touching stored objects. */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/** Reads a string field, or `undefined` when absent or not a string. */
export function stringField(obj: JsonObject | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** Reads an object field, or `undefined` when absent or not an object. */
export function objectField(obj: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = obj?.[key];
  return isJsonObject(v) ? v : undefined;
}

/** The strings of a JSON array (anything else in it is skipped); not an array: none. */
export function stringsOf(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
