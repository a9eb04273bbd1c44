// Which status fields a writer owns, and the patch that sets exactly those: other writers' fields stay untouched.
import { equals } from '../core/equals.js';
import { mergePatchOf } from './mergePatchOf.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The top-level status fields `desired` sets: every key whose value is neither null nor undefined. A writer
 * owns these once it has seen them land (written, or found already right).
 */
export function fieldsSet(desired: unknown): ReadonlySet<string> {
  if (!isPlainObject(desired)) return new Set();
  return new Set(Object.entries(desired).flatMap(([k, v]) => (v === null || v === undefined ? [] : [k])));
}

/**
 * The merge patch that gives `live` the status fields a writer computes, and nothing else. The rule, field by
 * field at the top level of `.status`:
 * - a field `desired` sets to a value is made equal to it (nested objects diffed, arrays replaced whole);
 * - a field `desired` sets to `null` is removed (the durable way to drop a field: it survives restarts);
 * - a field `desired` leaves out is left alone, unless it is in `owned` (this writer set it earlier in this
 *   process and stopped computing it): then it is removed;
 * - every other field belongs to somebody else and is never touched.
 *
 * A status that is not a plain object is replaced whole. Returns undefined when `live` already agrees.
 */
export function ownedStatusPatch(live: unknown, desired: unknown, owned: ReadonlySet<string>): unknown {
  if (!isPlainObject(desired)) return mergePatchOf(live, desired);
  const current = isPlainObject(live) ? live : {};
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(desired)) {
    if (value === null || value === undefined) {
      if (current[field] !== undefined) patch[field] = null;
      continue;
    }
    const sub = mergePatchOf(current[field], value);
    if (sub !== undefined) patch[field] = sub;
  }
  for (const field of owned) {
    if (!(field in desired) && current[field] !== undefined) patch[field] = null;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/**
 * The status a server-side apply sends: only the fields `desired` sets. Fields this writer applied before and
 * no longer sends are released by the apply itself (the server drops fields no manager owns any more).
 */
export function appliedStatus(desired: unknown): unknown {
  if (!isPlainObject(desired)) return desired;
  return Object.fromEntries(Object.entries(desired).filter(([, v]) => v !== null && v !== undefined));
}

/** Whether an apply of `desired` would change `live`: a set field differs, or a released or nulled field is still there. */
export function applyChanges(live: unknown, desired: unknown, owned: ReadonlySet<string>): boolean {
  if (!isPlainObject(desired)) return !equals(live, desired);
  const current = isPlainObject(live) ? live : {};
  for (const [field, value] of Object.entries(desired)) {
    if (value === null || value === undefined ? current[field] !== undefined : !equals(current[field], value)) return true;
  }
  for (const field of owned) if (!(field in desired) && current[field] !== undefined) return true;
  return false;
}

/**
 * The top-level status fields `manager` owns through server-side apply on the status subresource, read from
 * the object's `metadata.managedFields`: the server's record, so it survives a restart of the writer.
 */
export function appliedStatusFields(live: { metadata?: { managedFields?: unknown } }, manager: string): ReadonlySet<string> {
  const entries = live.metadata?.managedFields;
  const out = new Set<string>();
  if (!Array.isArray(entries)) return out;
  for (const e of entries as unknown[]) {
    if (!isPlainObject(e) || e.manager !== manager || e.operation !== 'Apply' || e.subresource !== 'status') continue;
    const status = isPlainObject(e.fieldsV1) ? e.fieldsV1['f:status'] : undefined;
    if (!isPlainObject(status)) continue;
    for (const k of Object.keys(status)) if (k.startsWith('f:')) out.add(k.slice(2));
  }
  return out;
}
