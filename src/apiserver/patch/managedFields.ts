// managedFields bookkeeping: which manager owns which fields, updated on every write.
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { FieldSet, valueAt, type FieldPath } from './fieldSet.js';

/** One `metadata.managedFields` entry, decoded. */
export interface Owner {
  manager: string;
  operation: 'Apply' | 'Update';
  /** `''` for the main resource, `'status'` for the status subresource. */
  subresource: string;
  apiVersion: string;
  time: string;
  fields: FieldSet;
}

/** What a write may own: a predicate over field paths. */
export type FieldScope = (path: FieldPath) => boolean;

// Metadata a client may set and therefore own; the rest of metadata is the server's.
const OWNABLE_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

/**
 * The fields a write through the main resource (`subresource = ''`) or `/status` may own. With a status
 * subresource the main resource never owns `.status`, and `/status` owns nothing else.
 */
export function fieldScope(rt: ResourceType, subresource: string): FieldScope {
  if (subresource === 'status') return (p) => p[0] === 'status';
  return (p) => {
    if (p[0] === 'apiVersion' || p[0] === 'kind') return false;
    if (p[0] === 'metadata') return p.length > 1 && OWNABLE_METADATA.has(p[1]!);
    return !(rt.statusSubresource && p[0] === 'status');
  };
}

/** Decodes `metadata.managedFields`; malformed entries are dropped. */
export function readOwners(obj: JsonObject | undefined): Owner[] {
  const raw = isJsonObject(obj?.metadata) ? obj.metadata.managedFields : undefined;
  if (!Array.isArray(raw)) return [];
  return raw.filter(isJsonObject).map((e) => ({
    manager: typeof e.manager === 'string' ? e.manager : '',
    operation: e.operation === 'Apply' ? 'Apply' : 'Update',
    subresource: typeof e.subresource === 'string' ? e.subresource : '',
    apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
    time: typeof e.time === 'string' ? e.time : '',
    fields: FieldSet.fromFieldsV1(e.fieldsV1),
  }));
}

/** Encodes owners for `metadata.managedFields` (empty owners are left out). */
export function encodeOwners(owners: readonly Owner[]): JsonValue[] {
  return owners
    .filter((o) => o.fields.size > 0)
    .map((o) => {
      const entry: JsonObject = {
        manager: o.manager,
        operation: o.operation,
        apiVersion: o.apiVersion,
        time: o.time,
        fieldsType: 'FieldsV1',
        fieldsV1: o.fields.toFieldsV1(),
      };
      if (o.subresource) entry.subresource = o.subresource;
      return entry;
    });
}

/**
 * Ownership after a non-apply write (create, update, merge/JSON patch): the writer takes every field
 * it set or changed, from whoever owned it before, as a real server does for `Update` operations.
 */
export function recordUpdate(
  owners: readonly Owner[],
  before: JsonObject | undefined,
  after: JsonObject,
  writer: { manager: string; subresource: string; apiVersion: string; time: string; scope: FieldScope },
): Owner[] {
  const changed = new FieldSet(
    FieldSet.fromObject(after, writer.scope)
      .paths()
      .filter((p) => !jsonEqual(valueAt(before, p), valueAt(after, p))),
  );
  if (changed.size === 0) return prune(owners, after);
  const next = owners.map((o) => withoutOverlaps(o, changed));
  const mine = next.find((o) => o.manager === writer.manager && o.operation === 'Update' && o.subresource === writer.subresource);
  if (mine) {
    for (const p of changed.paths()) mine.fields.add(p);
    mine.time = writer.time;
    mine.apiVersion = writer.apiVersion;
  } else {
    next.push({
      manager: writer.manager,
      operation: 'Update',
      subresource: writer.subresource,
      apiVersion: writer.apiVersion,
      time: writer.time,
      fields: changed,
    });
  }
  return prune(next, after);
}

/**
 * Ownership after a server-side apply: the applier's `Apply` entry becomes exactly what it applied;
 * fields it took by force leave their previous owners.
 */
export function recordApply(
  owners: readonly Owner[],
  after: JsonObject,
  applied: FieldSet,
  taken: FieldSet,
  applier: { manager: string; subresource: string; apiVersion: string; time: string },
): Owner[] {
  const next = owners
    .filter((o) => !(o.manager === applier.manager && o.operation === 'Apply' && o.subresource === applier.subresource))
    .map((o) => withoutOverlaps(o, taken));
  next.push({ ...applier, operation: 'Apply', fields: applied.clone() });
  return prune(next, after);
}

// Drops from `owner` every field overlapping one in `fields` (returns a copy).
function withoutOverlaps(owner: Owner, fields: FieldSet): Owner {
  const kept = owner.fields.clone();
  for (const p of fields.paths()) for (const o of kept.overlapping(p)) kept.delete(o);
  return { ...owner, fields: kept };
}

// Nobody owns a field that is no longer in the object; owners left with nothing disappear.
function prune(owners: readonly Owner[], after: JsonObject): Owner[] {
  return owners
    .map((o) => ({ ...o, fields: new FieldSet(o.fields.paths().filter((p) => valueAt(after, p) !== undefined)) }))
    .filter((o) => o.fields.size > 0);
}
