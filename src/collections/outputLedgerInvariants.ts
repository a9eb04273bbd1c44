// Strict mode's check of a derived collection's output bookkeeping: who produces what, and what is visible.
import type { InternalCollection } from '../core/internal.js';
import type { InputRecord, OutputSlot } from './derivedRecords.js';

/**
 * @internal The first broken invariant of a derived collection's outputs, or undefined: every input record
 * belongs to an input that exists upstream; every output slot has an owner and a duplicate-free line of
 * producers, each of which really produces the key; the visible value is the owner's; nothing visible
 * lacks a slot; no slot is left over from a finished batch.
 */
export function outputLedgerInconsistency<I, O>(
  parent: InternalCollection<I>,
  inputs: ReadonlyMap<string, InputRecord<O>>,
  slots: ReadonlyMap<string, OutputSlot<O>>,
  state: ReadonlyMap<string, O>,
  eq: (a: O, b: O) => boolean,
): string | undefined {
  const q = (s: string | undefined): string => JSON.stringify(s);
  for (const [k, r] of inputs) {
    if (r.key !== k) return `input record ${q(r.key)} is filed under ${q(k)}`;
    if (parent.getKey(k) === undefined) return `input ${q(k)} has a record but no longer exists upstream`;
    if (r.goodDeps === undefined && r.error !== undefined) return `input ${q(k)} is failing but kept no dependencies of its last good run`;
  }
  for (const [k, slot] of slots) {
    if (slot.key !== k) return `output slot ${q(slot.key)} is filed under ${q(k)}`;
    if (slot.before !== undefined) return `output ${q(k)} still holds its value from before a finished batch`;
    const producers = slot.producers();
    if (producers.length === 0) return `output ${q(k)} has no producer`;
    if (new Set(producers).size !== producers.length) return `output ${q(k)} lists a producer twice`;
    for (const p of producers) {
      if (inputs.get(p.key) !== p) return `output ${q(k)} names producer ${q(p.key)}, which is not a live input`;
      if (!p.produces(k)) return `output ${q(k)} names producer ${q(p.key)}, which does not produce it`;
    }
    const produced = slot.owner!.outputFor(k)!;
    const visible = state.get(k);
    if (visible !== slot.value) return `output ${q(k)} is ${visible === undefined ? 'missing from' : 'different in'} the state and its slot`;
    if (visible !== produced && (visible === undefined || !eq(visible, produced))) return `output ${q(k)} differs from what its owner ${q(slot.owner!.key)} produced`;
  }
  for (const [ik, r] of inputs) {
    if (r.many !== undefined && r.many.size < 2) return `input ${q(ik)} keeps ${r.many.size} outputs in a Map`;
    for (const k of r.outputKeys()) if (slots.get(k)?.producers().includes(r) !== true) return `input ${q(ik)} produces ${q(k)} but is not listed as its producer`;
  }
  for (const k of state.keys()) if (!slots.has(k)) return `output ${q(k)} is in the state but nobody produces it`;
  return undefined;
}
