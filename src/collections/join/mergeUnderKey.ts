// What both merging joins do with a merged value: keep it only under the key it was merged for.
import { KeyError } from '../../core/errors.js';
import { freezeOutput } from '../../core/freeze.js';

/**
 * Runs `merge` over the values sharing `key`. A merged value filed under a key it does not have would be
 * unreachable downstream (readers look it up by its own key): it is refused like a throwing merge, which keeps
 * the last value and reports the error.
 *
 * @throws KeyError naming the join when the merged value's key is not `key`.
 */
export function mergeUnderKey<T>(
  join: { readonly name: string; keyOf(o: T): string },
  merge: (values: T[]) => T | undefined,
  key: string,
  values: T[],
): T | undefined {
  const merged = merge(values);
  if (merged === undefined || merged === null) return undefined;
  const k = join.keyOf(merged);
  if (k !== key) throw new KeyError(join.name, merged, `merge must keep the key: ${JSON.stringify(key)} became ${JSON.stringify(k)}`);
  return freezeOutput(merged);
}
