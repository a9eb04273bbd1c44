// Server-side apply: merge a manager's applied configuration, detect conflicts, drop fields it let go of.
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../apimachinery/json.js';
import { StatusError } from '../apimachinery/statusError.js';
import { deleteAt, FieldSet, formatPath, valueAt, type FieldPath } from './fieldSet.js';
import type { FieldScope, Owner } from './managedFields.js';
import { applyMergePatch } from './mergePatch.js';

/** The input of one apply. */
export interface ApplyRequest {
  /** The current object, or a skeleton (`apiVersion`, `kind`, `metadata.name/namespace`) when creating. */
  live: JsonObject;
  /** The applied configuration (the request body). */
  applied: JsonObject;
  manager: string;
  /** `''` for the main resource, `'status'` for `/status`. */
  subresource: string;
  force: boolean;
  /** Fields this apply may touch (see `fieldScope`). */
  scope: FieldScope;
  owners: readonly Owner[];
}

/** The outcome of one apply, before the server's usual write rules run on `object`. */
export interface ApplyResult {
  object: JsonObject;
  /** The fields the manager now owns. */
  applied: FieldSet;
  /** Fields taken from other managers with `force`. */
  taken: FieldSet;
}

/**
 * A simplified server-side apply. It keeps the parts of the real algorithm a controller can observe:
 * the applied fields are merged in (maps recursively, lists and scalars replaced whole, as atomic
 * fields); a field another manager owns with a different value is a `409 Conflict` unless `force`,
 * which transfers ownership; fields this manager applied before but no longer applies are removed
 * when nobody else owns them. It does not know per-kind list merge keys (lists are atomic).
 *
 * @throws StatusError `409 Conflict` listing each conflicting field and its owner.
 */
export function serverSideApply(req: ApplyRequest): ApplyResult {
  const intent = scoped(req.applied, req.subresource, req.scope);
  const applied = FieldSet.fromObject(intent, req.scope);
  const others = req.owners.filter((o) => o.manager !== req.manager);

  const conflicts: Array<{ manager: string; path: FieldPath }> = [];
  const taken = new FieldSet();
  for (const path of applied.paths()) {
    // Equal values are shared ownership, not a conflict.
    if (jsonEqual(valueAt(req.live, path), valueAt(intent, path))) continue;
    for (const o of others) {
      if (o.fields.overlapping(path).length === 0) continue;
      conflicts.push({ manager: o.manager, path });
      taken.add(path);
    }
  }
  if (conflicts.length > 0 && !req.force) throw conflictError(conflicts);

  const object = applyMergePatch(req.live, intent) as JsonObject;
  const previous = req.owners.find((o) => o.manager === req.manager && o.operation === 'Apply' && o.subresource === req.subresource);
  const stillOwned = (path: FieldPath): boolean => others.some((o) => o.fields.overlapping(path).some((p) => !taken.overlapping(p).length));
  for (const path of previous?.fields.paths() ?? []) {
    if (applied.overlapping(path).length > 0 || stillOwned(path)) continue;
    if (valueAt(object, path) !== undefined) deleteAt(object, path, (p) => applied.overlapping(p).length > 0);
  }
  return { object, applied, taken };
}

// The part of the body an apply acts on: `.status` only through `/status`, never `.status` when the
// main resource has a status subresource, and never server-managed metadata.
function scoped(body: JsonObject, subresource: string, scope: FieldScope): JsonObject {
  if (subresource === 'status') return isJsonObject(body.status) ? { status: cloneJson(body.status) } : {};
  const out = cloneJson(body);
  if (!scope(['status'])) delete out.status;
  if (isJsonObject(out.metadata)) {
    // resourceVersion and uid stay: as on a real server they act as preconditions of the write.
    delete out.metadata.managedFields;
    delete out.metadata.creationTimestamp;
    delete out.metadata.generation;
  }
  return out;
}

function conflictError(conflicts: Array<{ manager: string; path: FieldPath }>): StatusError {
  const n = conflicts.length;
  const lines = conflicts.map((c) => `conflict with "${c.manager}": ${formatPath(c.path)}`);
  return new StatusError(409, 'Conflict', `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${lines.join(', ')}`, {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.manager}"`, field: formatPath(c.path) })),
  });
}
