// How much machine code an op runs again and again: the distinct 64-byte lines of code whose instructions
// ran at least a given number of times, from a callgrind output file written with `--dump-instr=yes`.
//
// Callgrind's simulated instruction cache only says whether the code fits (B1 as transactions misses 32 KB
// about 560 times per update and 64 KB about once, round 11's item 58). This says by how much, and whose code
// it is: what a change has to take away to fit.
import { eventNames, positionNames, walkCostLines } from './callgrindTotals.js';

/** The hot code of one process: every line's function, and the number of lines each function has. */
export interface CodeFootprint {
  /** Distinct hot lines of code in all. */
  lines: number;
  /** Hot lines by function (by the name callgrind gives it; JIT code by its address). */
  byFunction: Map<string, number>;
}

const LINE_BYTES = 64;

/**
 * Reads a callgrind output file whose positions are instruction addresses (`positions: instr line`) and
 * counts the lines of code holding an instruction that ran at least `minRuns` times (its `Ir`). Addresses are
 * absolute (`0x…`), relative to the last one (`+n`, `-n`) or the same (`*`); a call's inclusive cost line
 * is not the call site's own, but its address still sets the base for the next relative one.
 */
export function codeFootprint(text: string, minRuns: number): CodeFootprint {
  if (positionNames(text)[0] !== 'instr') throw new Error('codeFootprint needs a callgrind file written with --dump-instr=yes');
  const ir = eventNames(text).indexOf('Ir');
  if (ir < 0) throw new Error('the callgrind file has no Ir event');
  const owner = new Map<number, string>();
  let address = 0;
  walkCostLines(text, (line) => {
    address = nextAddress(line.position[0]!, address);
    if (!line.callCost && Number(line.costs[ir] ?? 0) >= minRuns) owner.set(Math.floor(address / LINE_BYTES), line.fn);
  });
  const byFunction = new Map<string, number>();
  for (const f of owner.values()) byFunction.set(f, (byFunction.get(f) ?? 0) + 1);
  return { lines: owner.size, byFunction };
}

function nextAddress(field: string, last: number): number {
  if (field === '*') return last;
  if (field.startsWith('+')) return last + Number(field.slice(1));
  if (field.startsWith('-')) return last - Number(field.slice(1));
  return Number(field);
}
