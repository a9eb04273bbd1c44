// Freezing objects handed out by collections, so nobody can change a value behind the engine's back.
import { freeze } from 'immer';
import { isStrictMode } from './strict.js';

/**
 * @internal Freezes a value entering a source collection. Deep by default: it crosses into the graph once,
 * and immer's deep freeze stops at subtrees that are already frozen, so immer-produced objects cost little.
 */
export function freezeInput<T>(value: T): T {
  return typeof value === 'object' && value !== null ? freeze(value, true) : value;
}

/**
 * @internal Freezes a transform's output. Shallow by default (outputs are usually fresh small objects
 * pointing at frozen inputs); deep in strict mode, which catches a transform that hands out mutable parts.
 */
export function freezeOutput<T>(value: T): T {
  return typeof value === 'object' && value !== null ? freeze(value, isStrictMode()) : value;
}
