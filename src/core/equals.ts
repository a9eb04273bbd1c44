// Equality: decides whether an update is a real change; it starts with `===` because immer shares structure.

const hasOwn = Object.prototype.hasOwnProperty;
/** Own and enumerable: what `for-in` with `hasOwn` lists. */
const isEnumerable = Object.prototype.propertyIsEnumerable;

interface Equaler {
  equals(other: unknown): boolean;
}

/**
 * `a === b`; else `a.equals(b)` when `a` has an `equals` method; else deep structural equality of plain
 * data (objects, arrays, Map, Set, Date). NaN equals NaN.
 */
export function equals(a: unknown, b: unknown): boolean {
  // The same tests as `valuesEqual`, written out rather than called: this is the entry of every output
  // comparison, and one call level more showed on pairs that differ.
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  const base = keysUsed;
  try {
    return objectsEqual(a, b);
  } finally {
    // Only a throw (a getter, an `equals` method) gets here with keys still held: give their places back.
    keysUsed = base;
  }
}

/** `equals` inside a comparison: only the entry point needs to give back `keysSeen`'s places after a throw. */
function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  return objectsEqual(a, b);
}

/**
 * The own keys of the object being walked, in order, so that the other object's keys can be checked
 * against them by position. A getter may compare objects while a walk is under way, so each walk takes the
 * places from `keysUsed` up and gives them back when it ends.
 */
const keysSeen: string[] = [];
let keysUsed = 0;

/** @internal Places of `keysSeen` in use: 0 between comparisons, after a throw too (for tests). */
export function keyPlacesInUse(): number {
  return keysUsed;
}

/** For `plainEqual`: `ra`'s prototype is not known yet, and is read only if it has to be compared. */
const PROTOTYPE_OF_A: unique symbol = Symbol('prototype of a');

/** Above this many places `keysSeen` is emptied after use rather than kept (one very wide object). */
const KEYS_KEPT = 1024;

/**
 * Plain data, the hot case: every output is compared with its predecessor on every recompute. The keys of
 * `rb` are read with a `for-in`, as those of `ra` are, and checked against them by position, because a read
 * of `rb[k]` or `hasOwn(rb, k)` by a key taken from another object is a megamorphic lookup, while inside
 * `for (k in rb)` V8 answers both from the enumeration cache; two objects built by the same code list their
 * keys in the same order. If the orders differ, `sameKeySet` decides by lookups.
 * Nested objects are compared only once every other field has matched: a recomputed output usually differs
 * in a scalar (an IP, a count, a resourceVersion) or in the length of a list, and finding that first skips
 * walking its nested objects (a Workload's `metadata`). The first two nested pairs wait in locals.
 * `rb`'s prototype is read only once everything else matched: any difference already means "not equal",
 * whatever `rb` is, and most compared pairs differ (a prototype read is a call V8 makes at such a site).
 * So `rb[k]` may run a getter of `rb`'s class before its prototype tells it apart: the answer is the same.
 */
function plainEqual(ra: Record<string, unknown>, rb: Record<string, unknown>, proto: object | null | typeof PROTOTYPE_OF_A): boolean {
  const base = keysUsed;
  let n = base;
  let nested = 0;
  let x1: object | undefined;
  let y1: object | undefined;
  let x2: object | undefined;
  let y2: object | undefined;
  for (const k in ra) {
    if (!hasOwn.call(ra, k)) continue;
    keysSeen[n++] = k;
    keysUsed = n;
    // If `k` is not `rb`'s own, any answer but "equal" is right, and "equal" waits for the key check.
    const x = ra[k];
    const y = rb[k];
    if (x === y) continue;
    if (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null) {
      // A list that changed usually changed its length: known without walking anything.
      if (Array.isArray(x) && Array.isArray(y) && x.length !== y.length && typeof (x as Partial<Equaler>).equals !== 'function')
        return release(base, false);
      if (nested === 0) {
        x1 = x;
        y1 = y;
      } else if (nested === 1) {
        x2 = x;
        y2 = y;
      }
      nested++;
    } else if (x === x || y === y) {
      // Distinct, and not both objects: equal only as two NaNs.
      return release(base, false);
    }
  }
  let i = base;
  let inOrder = true;
  for (const k in rb) {
    if (!hasOwn.call(rb, k)) continue;
    if (i === n || keysSeen[i] !== k) {
      inOrder = false;
      break;
    }
    i++;
  }
  const sameKeys = inOrder ? i === n : sameKeySet(ra, rb, n - base);
  release(base, true);
  if (!sameKeys || Object.getPrototypeOf(rb) !== (proto === PROTOTYPE_OF_A ? Object.getPrototypeOf(ra) : proto)) return false;
  if (nested === 0) return true;
  if (!objectsEqual(x1!, y1!)) return false;
  if (nested === 1) return true;
  if (!objectsEqual(x2!, y2!)) return false;
  if (nested === 2) return true;
  // More nested values than the locals hold: a second walk for the rest.
  let skip = 2;
  for (const k in ra) {
    if (!hasOwn.call(ra, k)) continue;
    const x = ra[k];
    const y = rb[k];
    if (x === y || typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) continue;
    if (skip > 0) skip--;
    else if (!objectsEqual(x, y)) return false;
  }
  return true;
}

/** Gives back the places a walk took in `keysSeen`, and passes its answer through. */
function release(base: number, answer: boolean): boolean {
  keysUsed = base;
  if (base === 0 && keysSeen.length > KEYS_KEPT) keysSeen.length = 0;
  return answer;
}

/** Whether `rb`'s own enumerable keys are exactly `ra`'s (which number `count`), whatever their order. */
function sameKeySet(ra: Record<string, unknown>, rb: Record<string, unknown>, count: number): boolean {
  let n = count;
  for (const k in rb) {
    if (!hasOwn.call(rb, k)) continue;
    if (!isEnumerable.call(ra, k)) return false;
    n--;
  }
  return n === 0;
}

/** Two distinct non-null objects: the `equals` method of the first, else structural equality. */
function objectsEqual(a: object, b: object): boolean {
  if (typeof (a as Partial<Equaler>).equals === 'function') return (a as Equaler).equals(b);
  // Arrays before the prototype read: they are the most common nested value after plain objects.
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  // An object literal's `constructor` is Object, found on Object.prototype: a property read, where
  // `Object.getPrototypeOf` at a site that sees many shapes is a call into V8's runtime on every compared
  // pair. It only picks the path: the prototypes themselves are compared
  // once everything else matched (see `plainEqual`), so an object whose prototype merely inherits
  // `constructor` from Object.prototype gets the same answer as before.
  if ((a as { constructor?: unknown }).constructor === Object)
    return plainEqual(a as Record<string, unknown>, b as Record<string, unknown>, PROTOTYPE_OF_A);
  const pa = Object.getPrototypeOf(a);
  if (pa === Object.prototype || pa === null) return plainEqual(a as Record<string, unknown>, b as Record<string, unknown>, pa);
  if (Array.isArray(b)) return false;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !valuesEqual(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    // Members are matched by identity first; a structured member without an identical partner is matched
    // against b's unmatched structured members by deep equality (each partner used once).
    let unmatched: unknown[] | undefined;
    for (const v of a) {
      if (b.has(v)) continue;
      if (typeof v !== 'object' || v === null) return false;
      unmatched ??= [...b].filter((w) => typeof w === 'object' && w !== null && !a.has(w));
      const i = unmatched.findIndex((w) => valuesEqual(v, w));
      if (i < 0) return false;
      unmatched.splice(i, 1);
    }
    return true;
  }
  if (b instanceof Map || b instanceof Set || b instanceof Date) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of ka) {
    if (!hasOwn.call(rb, k) || !valuesEqual(ra[k], rb[k])) return false;
  }
  return true;
}
