// The shape of the graph: ranks that keep every node above what it reads, and the cycle test that guards them.
import type { Dependent } from './internalCollection.js';

/** @internal Raises a node's rank (and, transitively, its dependents') so that it stays above what it reads. */
export function raiseRank(node: Dependent, min: number): void {
  if (node.rank >= min) return;
  node.rank = min;
  for (const d of node.dependentsForRank()) raiseRank(d, min + 1);
}

/**
 * @internal Whether `reader` reading `source` would close a cycle (`source` already depends on `reader`).
 * Fetch checks this before recording a dependency, so a transform that fetches downstream of itself fails
 * (and is reported) instead of corrupting the graph in the middle of a transaction.
 */
export function wouldCycle(reader: Dependent, source: object): boolean {
  return source === reader || reaches(reader, source);
}

/** Whether `target` is reachable from `from` along dependent edges. */
function reaches(from: Dependent, target: object): boolean {
  const seen = new Set<Dependent>();
  const stack: Dependent[] = [from];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const d of n.dependentsForRank()) {
      if (d === target) return true;
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
    }
  }
  return false;
}
