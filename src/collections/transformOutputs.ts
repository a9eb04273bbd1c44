// Turning what a transform returned into its outputs keyed by output key.
import { describeValue } from '../core/errors.js';
import { freezeOutput } from '../core/freeze.js';
import { SingleOutput } from './singleOutput.js';

/** @internal The outputs of a run that produced nothing (shared: never written to). */
export const NO_OUTPUTS: ReadonlyMap<string, never> = new Map<string, never>();

/**
 * @internal Keys the outputs of a many-output transform and freezes them. Undefined and null entries are
 * skipped; two outputs with one key: the last wins and `onDuplicate` hears of it. The common single output
 * is kept without a Map.
 * @throws TypeError when the transform returned something other than an array, undefined or null.
 */
export function keyOutputs<O>(
  result: readonly O[] | undefined | null,
  keyOf: (o: unknown) => string,
  onDuplicate: (o: O, key: string) => void,
): ReadonlyMap<string, O> {
  if (result === undefined || result === null) return NO_OUTPUTS;
  if (!Array.isArray(result)) {
    throw new TypeError(`transform returned ${describeValue(result)} where an array (or undefined/null) was expected`);
  }
  if (result.length === 1 && result[0] !== undefined && result[0] !== null) {
    const o = result[0];
    return new SingleOutput(keyOf(o), freezeOutput(o));
  }
  const m = new Map<string, O>();
  for (const o of result) {
    if (o === undefined || o === null) continue;
    const k = keyOf(o);
    if (m.has(k)) onDuplicate(o, k);
    m.set(k, freezeOutput(o));
  }
  return m.size === 0 ? NO_OUTPUTS : m;
}
