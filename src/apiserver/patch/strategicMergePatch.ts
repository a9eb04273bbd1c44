// Strategic merge patch: a merge patch whose lists merge item by item by their merge key, with its directives.
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { StatusError } from '../apimachinery/statusError.js';
import type { FieldPatchMeta, PatchSchema } from './patchStrategies.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/**
 * Applies a strategic merge patch to `live` and returns the result; neither argument is mutated.
 *
 * It follows apimachinery's `StrategicMergeMapPatch` rule for rule: maps merge key by key (`null` deletes);
 * a list with the `merge` strategy merges its objects by the merge key (new items go first, as on a real
 * server, unless `$setElementOrder` says otherwise) and its scalars as a set; any other list is replaced.
 * Directives: `$patch: replace | delete` in a map, `$patch: replace | delete` as a list item,
 * `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
 *
 * @throws StatusError with the code a real server answers: `400` for a malformed `$retainKeys`,
 *   `$deleteFromPrimitiveList` or `$setElementOrder` directive, `422` for a list of lists, and `500` (kube does
 *   not classify them) for an item without its merge key, an unknown `$patch` value, or mixed item types.
 */
export function applyStrategicMergePatch(live: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  return mergeMap(cloneJson(live), cloneJson(patch), schema, '');
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema, path: string): JsonObject {
  if (PATCH in patch) {
    const directive = patch[PATCH];
    if (directive === 'replace') return decoded(withoutKey(patch, PATCH)) as JsonObject;
    if (directive === 'delete') return {};
    throw unclassified(`unknown patch type: ${String(directive)} in map: ${show(patch)}`);
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema, path);
  for (const [patchKey, patchValue] of Object.entries(patch)) {
    if (patchValue === undefined) continue;
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST, 'invalid patch format of primitive list');
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    if (current === undefined || current === null || typeName(current) !== typeName(patchValue)) {
      // Absent here, or a value of another type: the patch's value, cleaned, replaces it.
      if (!isDeleteList) setCleaned(original, key, withoutNulls(patchValue));
      continue;
    }
    const childPath = path ? `${path}.${key}` : key;
    if (isJsonObject(current)) {
      original[key] = mergeMap(current, patchValue as JsonObject, schema, childPath);
    } else if (Array.isArray(current)) {
      original[key] = mergeListField(current, patchValue as JsonValue[], schema(childPath), isDeleteList, schema, childPath);
    } else {
      setCleaned(original, key, patchValue);
    }
  }
  // Keys such as `$foo` are no field of any built-in kind: decoding into the typed object drops them there.
  for (const key of Object.keys(original)) if (key.startsWith('$')) delete original[key];
  return original;
}

function mergeListField(
  original: JsonValue[],
  patch: JsonValue[],
  meta: FieldPatchMeta | undefined,
  isDeleteList: boolean,
  schema: PatchSchema,
  path: string,
): JsonValue[] {
  if (meta?.strategies.includes('merge') || isDeleteList) return mergeList(original, patch, meta?.mergeKey, isDeleteList, schema, path);
  return decoded(patch) as JsonValue[];
}

function mergeList(
  original: JsonValue[],
  patch: JsonValue[],
  mergeKey: string | undefined,
  isDeleteList: boolean,
  schema: PatchSchema,
  path: string,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = itemKind([original, patch]);
  let merged: JsonValue[];
  let serverOrder = original;
  let patchItems = patch;
  if (kind !== 'object') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [...new Set([...original, ...patch])];
  } else {
    if (!mergeKey) throw unclassified(`cannot merge lists without merge key for ${path}`);
    [serverOrder, patchItems] = applyListDirectives(original as JsonObject[], patch as JsonObject[], mergeKey);
    merged = mergeByKey(serverOrder as JsonObject[], patchItems as JsonObject[], mergeKey, schema, path);
  }
  const [inPatch, serverOnly] = partition(merged, patchItems, mergeKey);
  return normalizeOrder(inPatch, serverOnly, patchItems, serverOrder, mergeKey);
}

// `$patch` items of a list of objects: `delete` removes the live items with its key, `replace` makes the patch
// the whole list. Returns the live items left and the patch items without directives.
function applyListDirectives(original: JsonObject[], patch: JsonObject[], mergeKey: string): [JsonObject[], JsonObject[]] {
  let live = original;
  const plain: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!(PATCH in item)) {
      plain.push(item);
      continue;
    }
    const directive = item[PATCH];
    if (directive === 'delete') {
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
      live = live.filter((o) => o[mergeKey] !== item[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unclassified('merging lists cannot yet be specified in the patch');
    } else {
      throw unclassified(`unknown patch type: ${String(directive)} in map: ${show(item)}`);
    }
  }
  return replace ? [plain, []] : [live, plain];
}

function mergeByKey(original: JsonObject[], patch: JsonObject[], mergeKey: string, schema: PatchSchema, path: string): JsonValue[] {
  const merged: JsonValue[] = [...original];
  for (const item of patch) {
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    const at = merged.findIndex((o) => (o as JsonObject)[mergeKey] === item[mergeKey]);
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonObject, item, schema, path);
    else merged.push(decoded(item));
  }
  return merged;
}

// `$retainKeys`: every key of the map not listed is dropped before merging; the patch may only set listed keys.
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw badFormat('invalid patch format of retainKeys');
  const kept = new Set(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(key)) throw badFormat('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

// `$setElementOrder/<field>`: merges that field's list now and orders it: listed items as listed, the others
// where the live list had them.
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: PatchSchema, path: string): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw unclassified(`expected a []interface {}, but received ${show(order ?? null)}`);
    const field = directiveField(directiveKey, SET_ELEMENT_ORDER, 'invalid patch format of setElementOrder list');
    const liveList = listField(original, field);
    const patchList = listField(patch, field);
    const childPath = path ? `${path}.${field}` : field;
    const meta = schema(childPath);
    const mergeKey = meta?.mergeKey;
    if (patchList) checkOrderCoversPatch(patchList, order, mergeKey);
    let merged: JsonValue[];
    if (liveList && !patchList) merged = liveList;
    else if (!liveList && patchList) merged = patchList.map((v) => withoutDirectives(v)).filter((v) => v !== undefined);
    else if (liveList && patchList) merged = mergeListField(liveList, patchList, meta, false, schema, childPath);
    else continue;
    const kind = itemKind([liveList ?? [], patchList ?? []]);
    const [listed, others] = partition(merged, order, kind === 'object' ? mergeKey : undefined);
    original[field] = normalizeOrder(listed, others, order, liveList ?? [], kind === 'object' ? mergeKey : undefined);
    delete patch[field];
  }
}

// The patch's items must appear in the order list, in the same relative order (deletions aside).
function checkOrderCoversPatch(patchList: JsonValue[], order: JsonValue[], mergeKey: string | undefined): void {
  const items = patchList.filter((v) => !(isJsonObject(v) && PATCH in v));
  let next = 0;
  for (const entry of order) {
    if (next < items.length && sameItem(items[next]!, entry, mergeKey)) next++;
  }
  if (next < items.length) {
    throw unclassified(`The order in patch list:\n${show(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${show(order)}\n`);
  }
}

// Splits `merged` into the items `by` names (in `merged`'s order) and the others.
function partition(merged: JsonValue[], by: JsonValue[], mergeKey: string | undefined): [JsonValue[], JsonValue[]] {
  const named: JsonValue[] = [];
  const others: JsonValue[] = [];
  for (const item of merged) {
    if (mergeKey !== undefined && !(isJsonObject(item) && mergeKey in item)) throw noMergeKey(item, mergeKey);
    (by.some((b) => sameItem(item, b, mergeKey)) ? named : others).push(item);
  }
  return [named, others];
}

// apimachinery's normalizeElementOrder: the patch's items in `patchOrder`, the server's in `serverOrder`, then
// interleaved where both are known to the server; an item the server never had goes before the server's next.
function normalizeOrder(
  inPatch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string | undefined,
): JsonValue[] {
  if (mergeKey !== undefined) {
    for (const item of [...inPatch, ...patchOrder, ...serverOnly, ...serverOrder])
      if (!(isJsonObject(item) && mergeKey in item)) throw noMergeKey(item, mergeKey);
  }
  const indexIn = (list: JsonValue[], item: JsonValue): number => list.findIndex((x) => sameItem(x, item, mergeKey));
  const sortBy = (items: JsonValue[], order: JsonValue[]): JsonValue[] =>
    [...items].sort((a, b) => {
      const ia = indexIn(order, a);
      const ib = indexIn(order, b);
      return ia >= 0 && ib >= 0 ? ia - ib : 0;
    });
  const right = sortBy(inPatch, patchOrder);
  const left = sortBy(serverOnly, serverOrder);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]!);
    else if (i >= left.length) out.push(right[j++]!);
    else {
      const li = indexIn(serverOrder, left[i]!);
      const ri = indexIn(serverOrder, right[j]!);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++]! : right[j++]!);
    }
  }
  return out;
}

function sameItem(a: JsonValue, b: JsonValue, mergeKey: string | undefined): boolean {
  if (mergeKey === undefined) return a === b;
  return isJsonObject(a) && isJsonObject(b) && a[mergeKey] === b[mergeKey];
}

type ItemKind = 'object' | 'scalar';

// All items of the lists must share one JSON type, and none may be a list.
function itemKind(lists: JsonValue[][]): ItemKind {
  let seen: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = typeName(item);
      if (type === 'array') throw new StatusError(422, '', 'lists of lists are not supported');
      if (seen !== undefined && seen !== type) throw unclassified(`list element types are not identical: ${show(lists)}`);
      seen = type;
    }
  }
  if (seen === undefined) throw unclassified('no elements in any of the given slices');
  return seen === 'object' ? 'object' : 'scalar';
}

function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function directiveField(key: string, prefix: string, formatError: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badFormat(formatError);
  return key.slice(slash + 1);
}

function listField(obj: JsonObject, field: string): JsonValue[] | undefined {
  const value = obj[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw unclassified(`expected a []interface {}, but received ${show(value)}`);
  return value;
}

function setCleaned(target: JsonObject, key: string, value: JsonValue): void {
  const cleaned = withoutDirectives(value);
  if (cleaned === undefined) delete target[key];
  else target[key] = cleaned;
}

// apimachinery's removeDirectives: a map holding `$patch` disappears (from a list too); other `$` keys go as
// the typed decoding that follows would drop them.
function withoutDirectives(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) return value.map(withoutDirectives).filter((v): v is JsonValue => v !== undefined);
  if (!isJsonObject(value)) return value;
  if (PATCH in value) return undefined;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('$') || v === undefined) continue;
    const cleaned = withoutDirectives(v);
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return out;
}

// What decoding a value taken as it is into the typed object keeps: no nulls (zero values, omitted when
// encoded again) and no `$` keys (no such field exists).
function decoded(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(decoded);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined && !key.startsWith('$')) out[key] = decoded(v);
  return out;
}

// A patch value taken whole drops its nulls, at every depth (kube's discardNullValuesFromPatch).
function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined) out[key] = withoutNulls(v);
  return out;
}

function withoutKey(obj: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = obj;
  return rest;
}

function show(value: JsonValue): string {
  return JSON.stringify(value);
}

function badFormat(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

function noMergeKey(item: JsonValue, mergeKey: string): StatusError {
  return unclassified(`map: ${show(item)} does not contain declared merge key: ${mergeKey}`);
}

// kube-apiserver answers the errors strategicpatch does not classify as a 500 with an empty reason.
function unclassified(message: string): StatusError {
  return new StatusError(500, '', message);
}
