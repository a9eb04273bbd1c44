// Sets of field paths, the unit of ownership in managedFields, with the `fieldsV1` wire encoding.
import { isJsonObject, type JsonObject, type JsonValue } from '../apimachinery/json.js';

/** A path of object keys from the root of an object, e.g. `['spec', 'replicas']`. */
export type FieldPath = readonly string[];

/**
 * A set of leaf field paths. Leaves are scalars, arrays (treated as atomic, as for CRD fields without
 * `x-kubernetes-list-type`) and empty objects; non-empty objects are never members, only their leaves.
 */
export class FieldSet {
  private readonly members = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.add(p);
  }

  /** The leaf paths of `value` for which `include` holds (`null` values are skipped: they mean "unset"). */
  static fromObject(value: JsonObject, include: (path: FieldPath) => boolean = () => true): FieldSet {
    const set = new FieldSet();
    const walk = (v: JsonValue | undefined, path: string[]): void => {
      if (v === null) return;
      if (isJsonObject(v) && Object.keys(v).length > 0) {
        for (const [k, child] of Object.entries(v)) walk(child, [...path, k]);
      } else if (path.length > 0 && include(path)) set.add(path);
    };
    walk(value, []);
    return set;
  }

  /** Decodes a `fieldsV1` tree: `{"f:spec":{"f:replicas":{}}}`; `"."` marks an interior node that is itself a member. */
  static fromFieldsV1(tree: JsonValue | undefined): FieldSet {
    const set = new FieldSet();
    const walk = (node: JsonValue, path: string[]): void => {
      if (!isJsonObject(node)) return;
      const children = Object.keys(node).filter((k) => k !== '.');
      if (path.length > 0 && (children.length === 0 || '.' in node)) set.add(path);
      // Only `f:` (field) keys are understood; list-element keys (`k:`, `v:`, `i:`) stay at their atomic parent.
      for (const k of children) if (k.startsWith('f:')) walk(node[k]!, [...path, k.slice(2)]);
    };
    walk(tree ?? {}, []);
    return set;
  }

  /** Encodes the set as a `fieldsV1` tree. */
  toFieldsV1(): JsonObject {
    const root: JsonObject = {};
    for (const path of this.paths()) {
      let node = root;
      for (const key of path) node = (node[`f:${key}`] ??= {}) as JsonObject;
    }
    // A member that is also an ancestor of another member gets the "." marker.
    for (const path of this.paths()) {
      let node: JsonObject = root;
      for (const key of path) node = node[`f:${key}`] as JsonObject;
      if (Object.keys(node).some((k) => k !== '.')) node['.'] = {};
    }
    return root;
  }

  get size(): number {
    return this.members.size;
  }

  has(path: FieldPath): boolean {
    return this.members.has(keyOf(path));
  }

  add(path: FieldPath): void {
    this.members.set(keyOf(path), [...path]);
  }

  delete(path: FieldPath): void {
    this.members.delete(keyOf(path));
  }

  paths(): FieldPath[] {
    return [...this.members.values()];
  }

  /** Members equal to `path`, above it (an atomic ancestor) or below it. */
  overlapping(path: FieldPath): FieldPath[] {
    return this.paths().filter((m) => isPrefix(m, path) || isPrefix(path, m));
  }

  /** A copy. */
  clone(): FieldSet {
    return new FieldSet(this.paths());
  }
}

/** The value at `path`, or `undefined` when any step is missing. */
export function valueAt(obj: JsonValue | undefined, path: FieldPath): JsonValue | undefined {
  let cur = obj;
  for (const key of path) {
    if (!isJsonObject(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/**
 * Deletes the value at `path` in place, then removes ancestors left as empty objects, stopping at any
 * ancestor `keep` protects (one the caller still means to set, even as `{}`).
 */
export function deleteAt(obj: JsonObject, path: FieldPath, keep: (path: FieldPath) => boolean = () => false): void {
  const chain: JsonObject[] = [obj];
  for (const key of path.slice(0, -1)) {
    const next = chain[chain.length - 1]![key];
    if (!isJsonObject(next)) return;
    chain.push(next);
  }
  delete chain[chain.length - 1]![path[path.length - 1]!];
  for (let depth = path.length - 1; depth > 0; depth--) {
    const node = chain[depth]!;
    const nodePath = path.slice(0, depth);
    if (Object.keys(node).length > 0 || keep(nodePath)) break;
    delete chain[depth - 1]![path[depth - 1]!];
  }
}

/** Renders a path the way API errors name fields: `.spec.replicas`. */
export function formatPath(path: FieldPath): string {
  return path.map((k) => `.${k}`).join('');
}

function keyOf(path: FieldPath): string {
  return JSON.stringify(path);
}

function isPrefix(prefix: FieldPath, path: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => path[i] === k);
}
