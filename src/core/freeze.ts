// Freezing objects handed out by collections, so nobody can change a value behind the engine's back.
import { freeze, isDraft } from 'immer';
import { isStrictMode } from './strict.js';

/**
 * @internal Freezes a value entering a source collection: shallowly by default, because a deep freeze of
 * every fresh object dominates the cost of ingesting a large list; deeply in strict mode (the test suite
 * runs in it), so code that mutates a nested part of an input is caught in tests. immer's deep freeze stops
 * at subtrees already frozen, so immer-produced objects cost almost nothing either way.
 */
export function freezeInput<T>(value: T): T {
  return typeof value === 'object' && value !== null ? freezeObject(value, isStrictMode()) : value;
}

/**
 * @internal Freezes a transform's output: shallowly by default (outputs are usually fresh small objects
 * pointing at frozen inputs), deeply in strict mode, which catches a transform that hands out mutable parts.
 */
export function freezeOutput<T>(value: T): T {
  return typeof value === 'object' && value !== null ? freezeObject(value, isStrictMode()) : value;
}

/**
 * immer's `freeze`, with the shallow freeze of a plain object or array done directly: it runs for every
 * input and output, where immer's general path (draftability, Map/Set handling) is a cost worth skipping.
 * Anything else (Map, Set, immerable classes, drafts, deep freezes) is left to immer, so which
 * objects end up frozen does not change. No `Object.isFrozen` first: inputs and outputs are mostly fresh
 * objects, for which it is one more call into the runtime, and freezing a frozen object changes nothing.
 */
function freezeObject<T extends object>(value: T, deep: boolean): T {
  // `constructor` is a property load the call site caches, where `Object.getPrototypeOf` cost a quarter of
  // the freeze. What it misses (null-prototype objects, an own `constructor` key) immer freezes alike.
  if (!deep && ((value as { constructor?: unknown }).constructor === Object || Array.isArray(value)) && !isDraft(value)) {
    return Object.freeze(value);
  }
  return freeze(value, deep);
}
