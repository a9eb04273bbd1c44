// Turning what a transform returned into its outputs keyed by output key.
import { describeValue } from '../../core/errors.js';
import { freezeOutput } from '../../core/freeze.js';

/**
 * @internal Keys the outputs of a many-output transform and freezes them: undefined (no outputs) or a Map
 * of at least one entry. Undefined and null entries are skipped; two outputs with one key: the last wins
 * and `onDuplicate` hears of it.
 * @throws TypeError when the transform returned something other than an array, undefined or null.
 */
export function keyOutputs<O>(
  result: readonly O[] | undefined | null,
  keyOf: (o: unknown) => string,
  onDuplicate: (o: O, key: string) => void,
): ReadonlyMap<string, O> | undefined {
  if (result === undefined || result === null) return undefined;
  if (!Array.isArray(result)) {
    throw new TypeError(`transform returned ${describeValue(result)} where an array (or undefined/null) was expected`);
  }
  let m: Map<string, O> | undefined;
  for (const o of result) {
    if (o === undefined || o === null) continue;
    const k = keyOf(o);
    m ??= new Map<string, O>();
    if (m.has(k)) onDuplicate(o, k);
    m.set(k, freezeOutput(o));
  }
  return m;
}
