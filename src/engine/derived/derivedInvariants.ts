// Strict mode's checks of a derived collection: who produces what, what is visible, what depends on what.
import type { InternalCollection } from '../internalCollection.js';
import type { KeyEntry } from './keyEntry.js';
import type { DependencyIndex } from './dependencyIndex.js';

/**
 * @internal The first broken invariant of a derived collection's entries, or undefined: every entry is an
 * input that exists upstream, an output with an owner, or both; every output's line of producers is
 * duplicate-free and made of live inputs that really produce the key; the visible value is the owner's;
 * nothing visible lacks an output entry; nothing is left over from a finished batch.
 */
export function outputLedgerInconsistency<I, O>(
  parent: InternalCollection<I>,
  entries: ReadonlyMap<string, KeyEntry<O>>,
  size: number,
  eq: (a: O, b: O) => boolean,
): string | undefined {
  let visibleCount = 0;
  const q = (s: string | undefined): string => JSON.stringify(s);
  for (const [k, e] of entries) {
    if (e.key !== k) return `entry ${q(e.key)} is filed under ${q(k)}`;
    if (e.changed) return `output ${q(k)} is still marked changed after its batch`;
    if (!e.isInput && e.owner === undefined) return `entry ${q(k)} is neither an input nor an output`;
    if (e.isInput) {
      if (parent.getKey(k) === undefined) return `input ${q(k)} has an entry but no longer exists upstream`;
      if (e.goodDeps === null && e.error !== undefined) return `input ${q(k)} is failing but kept no dependencies of its last good run`;
      if (e.many !== undefined && e.many.size < 2) return `input ${q(k)} keeps ${e.many.size} outputs in a Map`;
      for (const o of e.outputKeys())
        if (entries.get(o)?.producers().includes(e) !== true) return `input ${q(k)} produces ${q(o)} but is not listed as its producer`;
    } else if (e.hasOutputs() || e.deps !== undefined || e.goodDeps !== null) {
      return `entry ${q(k)} is not an input but keeps outputs or dependencies`;
    }
    const visible = e.value;
    if (visible !== undefined) visibleCount++;
    if (e.owner === undefined) {
      if (visible !== undefined) return `output ${q(k)} is visible but nobody produces it`;
      continue;
    }
    if (visible === undefined) return `output ${q(k)} has an owner but no visible value`;
    const producers = e.producers();
    if (new Set(producers).size !== producers.length) return `output ${q(k)} lists a producer twice`;
    for (const p of producers) {
      if (entries.get(p.key) !== p || !p.isInput) return `output ${q(k)} names producer ${q(p.key)}, which is not a live input`;
      if (!p.produces(k)) return `output ${q(k)} names producer ${q(p.key)}, which does not produce it`;
    }
    const produced = e.owner.outputFor(k)!;
    if (visible !== produced && !eq(visible, produced)) return `output ${q(k)} differs from what its owner ${q(e.owner.key)} produced`;
  }
  if (visibleCount !== size) return `${visibleCount} outputs are visible but the collection's size is ${size}`;
  return undefined;
}

/** @internal Strict mode: after a commit no entry may still be marked queued (a later flush would skip it, and lose its change). */
function queuedEntryLeft<O>(entries: ReadonlyMap<string, KeyEntry<O>>): string | undefined {
  for (const e of entries.values()) if (e.queued) return `input ${JSON.stringify(e.key)} is still marked queued after its flush`;
  return undefined;
}

/** @internal The first broken invariant of a derived collection after a commit, or undefined. */
export function derivedInconsistency<I, O>(
  parent: InternalCollection<I>,
  entries: ReadonlyMap<string, KeyEntry<O>>,
  size: number,
  eq: (a: O, b: O) => boolean,
  deps: DependencyIndex<KeyEntry<O>>,
  fetchesParent: boolean,
): string | undefined {
  return (
    outputLedgerInconsistency(parent, entries, size, eq) ??
    deps.inconsistency() ??
    queuedEntryLeft(entries) ??
    (fetchesParent !== deps.uses(parent.uid) ? `fetchesParent is ${fetchesParent}, but the dependency index says otherwise` : undefined)
  );
}
