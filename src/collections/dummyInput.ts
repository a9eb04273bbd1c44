// The one-element input that singletons built on the derived engine are computed from.
import { newStaticCollection } from './newStaticCollection.js';
import type { InternalCollection } from '../engine/internalCollection.js';
import type { CollectionOptions } from '../core/types.js';

/** @internal A synced collection holding one empty string; never in the debugger. */
export function dummyInput(opts: CollectionOptions | undefined): InternalCollection<string> {
  const name = opts?.name !== undefined ? `${opts.name}/input` : undefined;
  return newStaticCollection<string>([''], name !== undefined ? { name } : undefined) as unknown as InternalCollection<string>;
}
