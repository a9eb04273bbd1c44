// Reading callgrind's output for `npm run bench:counts`: the totals of a run, and what they come to per update.

/** A run's totals by callgrind event name (Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw with --cache-sim). */
export type Totals = Record<string, number>;

/**
 * The totals of a callgrind output file: its `events:` line names the columns of its `summary:` line.
 * @throws Error when either line is missing, or when nothing was counted (the measured calls never ran).
 */
export function parseCallgrindTotals(text: string, file = 'callgrind output'): Totals {
  const events = /^events:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const summary = /^summary:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (events === undefined || summary === undefined) throw new Error(`${file}: no events or summary line`);
  if (summary.length !== events.length || summary.some((n) => !Number.isFinite(n))) throw new Error(`${file}: the summary line does not match the events line`);
  const t: Totals = {};
  events.forEach((e, i) => (t[e] = summary[i]!));
  if ((t['Ir'] ?? 0) === 0) throw new Error(`${file}: nothing was counted (the measured calls never ran)`);
  return t;
}

/** Per update: instructions, first-level data misses, first-level code misses, last-level misses, and the estimate. */
export interface PerUpdate {
  instructions: number;
  l1dMisses: number;
  l1iMisses: number;
  llMisses: number;
  /** Instructions + 10 per first-level data miss + 100 per last-level miss (see `estimatedCycles`). */
  estCycles: number;
}

/**
 * Callgrind's old rule of thumb for cycles, without first-level code misses: in B1 as 1000 transactions the
 * simulated 32 KB instruction cache misses about 600 times per update where the host's real caches (an op
 * cache, a 1 MB second level, code prefetching) hide most of it, and counted at 10 cycles each they would
 * outweigh everything else. They are reported on their own.
 */
export function estimatedCycles(instructions: number, l1dMisses: number, llMisses: number): number {
  return instructions + 10 * l1dMisses + 100 * llMisses;
}

export function perUpdate(t: Totals, updates: number): PerUpdate {
  const instructions = (t['Ir'] ?? 0) / updates;
  const l1dMisses = ((t['D1mr'] ?? 0) + (t['D1mw'] ?? 0)) / updates;
  const l1iMisses = (t['I1mr'] ?? 0) / updates;
  const llMisses = ((t['DLmr'] ?? 0) + (t['DLmw'] ?? 0) + (t['ILmr'] ?? 0)) / updates;
  return { instructions, l1dMisses, l1iMisses, llMisses, estCycles: estimatedCycles(instructions, l1dMisses, llMisses) };
}

/** The median of each figure over several processes, and how far their instruction counts spread (max / min − 1). */
export function medianPerUpdate(each: readonly PerUpdate[]): { median: PerUpdate; spread: number } {
  if (each.length === 0) throw new Error('no processes to summarize');
  const mid = (f: (p: PerUpdate) => number): number => {
    const xs = each.map(f).sort((a, b) => a - b);
    const m = xs.length >> 1;
    return xs.length % 2 === 1 ? xs[m]! : (xs[m - 1]! + xs[m]!) / 2;
  };
  const irs = each.map((p) => p.instructions);
  return {
    median: { instructions: mid((p) => p.instructions), l1dMisses: mid((p) => p.l1dMisses), l1iMisses: mid((p) => p.l1iMisses), llMisses: mid((p) => p.llMisses), estCycles: mid((p) => p.estCycles) },
    spread: Math.max(...irs) / Math.min(...irs) - 1,
  };
}
