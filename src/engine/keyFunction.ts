// A collection's own key function and key test: the `key` option when given, else the rules of `keyOf`.
import { KeyError } from '../core/errors.js';
import { hasKey, tryKeyOf } from '../core/keyOf.js';

/** @internal A collection's test "is `o` keyed `key`?": `hasKey`, or the user's key option applied and compared. */
export function makeKeyTest(keyFn: (o: unknown) => string, override?: (o: never) => string): (o: unknown, key: string) => boolean {
  if (override !== undefined) return (o, key) => keyFn(o) === key;
  return hasKey;
}

/** @internal A collection's key function: the user's override, else `keyOf`; errors name the collection. */
export function makeKeyFn(collection: () => string, override?: (o: never) => string): (o: unknown) => string {
  if (override !== undefined) {
    const user = override as (o: unknown) => string;
    return (o) => {
      let k: unknown;
      try {
        k = user(o);
      } catch (e) {
        throw new KeyError(collection(), o, `the key option threw: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (typeof k !== 'string') throw new KeyError(collection(), o, `the key option returned ${typeof k}, not a string`);
      return k;
    };
  }
  return (o) => {
    const k = tryKeyOf(o);
    if (k === undefined) throw new KeyError(collection(), o);
    return k;
  };
}

/** @internal A collection's key for `o` in an error report, or undefined when it has none (the report must not throw). */
export function safeKey(c: { keyOf(o: unknown): string }, o: unknown): string | undefined {
  try {
    return c.keyOf(o);
  } catch {
    return undefined;
  }
}
