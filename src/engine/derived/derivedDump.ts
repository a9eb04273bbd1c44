// A derived collection's state in the debug dump: its outputs, and per input what it produced and read.
import type { CollectionDump, InputDump } from '../../core/types.js';
import { depArray } from './dependency.js';
import type { KeyEntry } from './keyEntry.js';

/** @internal The dump of a derived collection's entries (the shape of krt's `/debug/krtz`). */
export function dumpDerived<O>(entries: ReadonlyMap<string, KeyEntry<O>>, inputCollection: string, synced: boolean): CollectionDump {
  const inputs: Record<string, InputDump> = {};
  for (const [k, r] of entries) {
    if (!r.isInput) continue;
    const d: InputDump = {};
    if (r.hasOutputs()) d.outputs = r.outputKeys().sort();
    if (r.deps !== undefined)
      d.dependencies = depArray(r.deps)
        .map((x) => x.source.name)
        .sort();
    if (r.error !== undefined) (d as InputDump & { error?: string }).error = r.error;
    inputs[k] = d;
  }
  const outputs: Record<string, O> = {};
  for (const [k, e] of entries) if (e.value !== undefined) outputs[k] = e.value;
  return { outputs, inputCollection, inputs, synced };
}
