// Strict mode's check of a derived collection's output bookkeeping: who produces what, and what is visible.
import type { InternalCollection } from '../core/internal.js';

/**
 * @internal The first broken invariant of a derived collection's outputs, or undefined: every input with
 * outputs still exists upstream; every output key has a non-empty, duplicate-free producer list of inputs
 * that really produce it; the visible value is the owner's (first producer's); nothing visible lacks a producer.
 */
export function outputLedgerInconsistency<I, O>(
  parent: InternalCollection<I>,
  mappings: ReadonlyMap<string, ReadonlyMap<string, O>>,
  producers: ReadonlyMap<string, readonly string[]>,
  state: ReadonlyMap<string, O>,
  eq: (a: O, b: O) => boolean,
): string | undefined {
  const q = (s: string | undefined): string => JSON.stringify(s);
  for (const k of mappings.keys()) if (parent.getKey(k) === undefined) return `input ${q(k)} has outputs but no longer exists upstream`;
  for (const [k, owners] of producers) {
    if (owners.length === 0) return `output ${q(k)} has no producer`;
    if (new Set(owners).size !== owners.length) return `output ${q(k)} lists a producer twice`;
    for (const o of owners) if (mappings.get(o)?.has(k) !== true) return `output ${q(k)} names producer ${q(o)}, which does not produce it`;
    const produced = mappings.get(owners[0]!)!.get(k)!;
    const visible = state.get(k);
    if (visible !== produced && (visible === undefined || !eq(visible, produced))) return `output ${q(k)} differs from what its owner ${q(owners[0])} produced`;
  }
  for (const [ik, m] of mappings) for (const k of m.keys()) if (producers.get(k)?.includes(ik) !== true) return `input ${q(ik)} produces ${q(k)} but is not listed as its producer`;
  for (const k of state.keys()) if (!producers.has(k)) return `output ${q(k)} is in the state but nobody produces it`;
  return undefined;
}
