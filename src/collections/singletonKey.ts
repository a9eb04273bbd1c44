// How a singleton's value is keyed: by keyOf where that works, else under one fixed key.
import { tryKeyOf } from '../core/keyOf.js';

/** The key a singleton uses for values `keyOf` cannot key (numbers, plain records, booleans). */
export const SINGLETON_KEY = 'static';

/**
 * @internal A string value is its own key (so a changed string is a delete plus an add, as in krt), an
 * object with a name keeps its key; anything else lives under `static`, so a changed value is an update.
 */
export function singletonKey(o: unknown): string {
  return tryKeyOf(o) ?? SINGLETON_KEY;
}
