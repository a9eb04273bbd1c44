// JSON Patch (RFC 6902) with JSON Pointer (RFC 6901) paths: add, remove, replace, move, copy, test.
import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { badRequest, StatusError } from '../apimachinery/statusError.js';

/** One operation of a JSON Patch document. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: JsonValue;
}

/**
 * Applies an RFC 6902 patch document to a copy of `target` and returns the copy. Operations apply in
 * order and the whole patch fails if any one fails (nothing is half-applied: the copy is discarded).
 *
 * @throws StatusError `400 BadRequest` for a malformed document; `422 Invalid` when an operation does not
 *   apply (missing path, failed `test`), as a real API server answers.
 */
export function applyJsonPatch(target: JsonValue, patch: JsonValue): JsonValue {
  const ops = validate(patch);
  let doc = cloneJson(target);
  for (const [i, op] of ops.entries()) {
    try {
      doc = applyOperation(doc, op);
    } catch (e) {
      if (e instanceof PatchFailure)
        throw new StatusError(422, 'Invalid', `json patch operation ${i} (${op.op} ${op.path}) does not apply: ${e.message}`);
      throw e;
    }
  }
  return doc;
}

/** Splits a JSON Pointer into unescaped reference tokens (`~1` is `/`, `~0` is `~`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchFailure(`invalid JSON pointer "${pointer}": must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

class PatchFailure extends Error {}

function validate(patch: JsonValue): JsonPatchOperation[] {
  if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
  return patch.map((raw, i) => {
    if (!isJsonObject(raw)) throw badRequest(`json patch operation ${i} is not an object`);
    const { op, path, from } = raw;
    if (typeof op !== 'string' || !['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op)) {
      throw badRequest(`json patch operation ${i} has unknown op ${JSON.stringify(op)}`);
    }
    if (typeof path !== 'string') throw badRequest(`json patch operation ${i} has no "path"`);
    if ((op === 'move' || op === 'copy') && typeof from !== 'string') throw badRequest(`json patch operation ${i} (${op}) has no "from"`);
    if ((op === 'add' || op === 'replace' || op === 'test') && !('value' in raw))
      throw badRequest(`json patch operation ${i} (${op}) has no "value"`);
    return raw as unknown as JsonPatchOperation;
  });
}

function applyOperation(doc: JsonValue, op: JsonPatchOperation): JsonValue {
  const path = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      return add(doc, path, cloneJson(op.value!));
    case 'remove':
      return remove(doc, path).doc;
    case 'replace':
      return replace(doc, path, cloneJson(op.value!));
    case 'move': {
      const from = parsePointer(op.from!);
      if (path.length > from.length && from.every((t, i) => path[i] === t)) throw new PatchFailure('cannot move a value into itself');
      const removed = remove(doc, from);
      return add(removed.doc, path, removed.value);
    }
    case 'copy':
      return add(doc, path, cloneJson(get(doc, parsePointer(op.from!))));
    case 'test': {
      if (!jsonEqual(get(doc, path), op.value!)) throw new PatchFailure('test failed: value differs');
      return doc;
    }
  }
}

function get(doc: JsonValue, path: string[]): JsonValue {
  let cur = doc;
  for (const token of path) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, token, false)]!;
    else if (isJsonObject(cur) && Object.prototype.hasOwnProperty.call(cur, token)) cur = cur[token]!;
    else throw new PatchFailure(`path not found at "${token}"`);
  }
  return cur;
}

function add(doc: JsonValue, path: string[], value: JsonValue): JsonValue {
  if (path.length === 0) return value;
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(last === '-' ? parent.length : arrayIndex(parent, last, true), 0, value);
  else if (isJsonObject(parent)) (parent as JsonObject)[last] = value;
  else throw new PatchFailure(`cannot add "${last}" to a scalar`);
  return doc;
}

function replace(doc: JsonValue, path: string[], value: JsonValue): JsonValue {
  get(doc, path); // the target must exist
  if (path.length === 0) return value;
  const parent = get(doc, path.slice(0, -1)) as JsonObject | JsonValue[];
  const last = path[path.length - 1]!;
  // Assign in place (rather than remove + add) so an object keeps its key order.
  if (Array.isArray(parent)) parent[arrayIndex(parent, last, false)] = value;
  else parent[last] = value;
  return doc;
}

function remove(doc: JsonValue, path: string[]): { doc: JsonValue; value: JsonValue } {
  if (path.length === 0) throw new PatchFailure('cannot remove the whole document');
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const [value] = parent.splice(arrayIndex(parent, last, false), 1);
    return { doc, value: value! };
  }
  if (isJsonObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) {
    const value = parent[last]!;
    delete parent[last];
    return { doc, value };
  }
  throw new PatchFailure(`path not found at "${last}"`);
}

function arrayIndex(arr: JsonValue[], token: string, allowEnd: boolean): number {
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchFailure(`invalid array index "${token}"`);
  const i = Number(token);
  if (i > arr.length || (!allowEnd && i === arr.length)) throw new PatchFailure(`array index ${i} out of bounds`);
  return i;
}
