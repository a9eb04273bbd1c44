// Key derivation: the one rule that decides which key an object lives under.
import { KeyError } from './errors.js';

/** @internal Objects that are collections carry this brand so `keyOf` can key them by uid. */
export const COLLECTION_BRAND: unique symbol = Symbol.for('rxkrt.collection');

interface MaybeMeta {
  // Untrusted: null in decoded JSON, a method on a collection.
  metadata?: { name?: unknown; namespace?: unknown } | null | (() => unknown);
  resourceName?: unknown;
  uid?: unknown;
  [COLLECTION_BRAND]?: true;
}

/**
 * Derives the key of an object:
 * a string is its own key; an object with `metadata.name` is `namespace/name` (or `name` without a
 * namespace); an object with a `resourceName()` method is keyed by it; a collection by its uid.
 * @throws KeyError for anything else.
 */
export function keyOf(o: unknown): string {
  const key = tryKeyOf(o);
  if (key === undefined) throw new KeyError('', o);
  return key;
}

/** @internal `keyOf` that returns undefined instead of throwing (hot path: no exception machinery). */
export function tryKeyOf(o: unknown): string | undefined {
  if (typeof o === 'string') return o;
  if (o === null || typeof o !== 'object') return undefined;
  const m = o as MaybeMeta;
  const meta = m.metadata;
  // `typeof meta === 'object'`: a collection has a metadata() *method*, whose `name` is "metadata".
  if (typeof meta === 'object' && meta !== null && typeof meta.name === 'string' && meta.name !== '') {
    const ns = meta.namespace;
    return typeof ns === 'string' && ns !== '' ? namespacedKey(ns, meta.name) : meta.name;
  }
  if (typeof m.resourceName === 'function') {
    const k: unknown = (m.resourceName as () => unknown)();
    return typeof k === 'string' ? k : undefined;
  }
  if (m[COLLECTION_BRAND] === true) return String(m.uid);
  return undefined;
}

/**
 * @internal Whether `keyOf(o)` would be `key`, without building the key string. Transforms mostly return an
 * object keyed like their input (a Workload named after its Pod); checking against the input's key first
 * saves a `namespace/name` string per run.
 */
export function hasKey(o: unknown, key: string): boolean {
  if (typeof o === 'string') return o === key;
  if (o === null || typeof o !== 'object') return false;
  const meta = (o as MaybeMeta).metadata;
  if (typeof meta === 'object' && meta !== null && typeof meta.name === 'string' && meta.name !== '') {
    const name = meta.name;
    const ns = meta.namespace;
    if (typeof ns !== 'string' || ns === '') return key === name;
    // key === `${ns}/${name}`, compared piecewise.
    return key.length === ns.length + 1 + name.length && key.charCodeAt(ns.length) === SLASH && key.startsWith(ns) && key.endsWith(name);
  }
  return tryKeyOf(o) === key;
}

/**
 * V8 builds a concatenation of 13 characters or more as a rope (ConsString), shorter ones flat
 * (`ConsString::kMinLength`).
 */
const ROPE_MIN_LENGTH = 13;

/**
 * `namespace/name`, flat. Every event's key is built afresh and then looked up, in the source's map and
 * again downstream. A rope's hash and its comparison with the stored key leave the maps' fast paths for
 * V8's runtime on every lookup; flattening it once costs less than that. Shorter keys are flat already.
 */
function namespacedKey(ns: string, name: string): string {
  const key = `${ns}/${name}`;
  return key.length < ROPE_MIN_LENGTH ? key : storedKey(key);
}

const SLASH = 47;

/**
 * @internal Whether `keyOf(a) === keyOf(b)` follows from `a` and `b` carrying the same `metadata.name` and
 * `metadata.namespace` values (an output named after its input). Compares the fields, not a key: the key
 * string of a big collection's entry is usually far away in memory, and reading it was a cache miss per
 * recompute. False means "unknown", not "different".
 */
export function sameObjectName(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const ma = (a as MaybeMeta).metadata;
  const mb = (b as MaybeMeta).metadata;
  if (typeof ma !== 'object' || ma === null || typeof mb !== 'object' || mb === null) return false;
  const name = ma.name;
  return typeof name === 'string' && name !== '' && name === mb.name && ma.namespace === mb.namespace;
}

/**
 * @internal A key as it should be kept for good. `namespace/name` comes out of concatenation as a rope
 * (V8's ConsString): a node pointing at its halves, one of them often a string of its own (`"ns-1/"`), and
 * Map hashing leaves it so. Flattening it lets the next scavenge swap every reference for one flat
 * string. Keys are kept once per object and looked up on every event, so this runs where a key is first
 * stored, never on a lookup. `trim` flattens, and its result is used, so the call cannot be optimized away; it changes nothing in a
 * key without surrounding blanks, and a key with them is kept as it is.
 */
export function storedKey(key: string): string {
  const flat = key.trim();
  return flat.length === key.length ? flat : key;
}
