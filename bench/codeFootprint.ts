// How much machine code an op runs again and again: the distinct 64-byte lines of code whose instructions
// ran at least a given number of times, from a callgrind output file written with `--dump-instr=yes`.
//
// Callgrind's simulated instruction cache only says whether the code fits (B1 as transactions misses 32 KB
// about 560 times per update and 64 KB about once, round 11's item 58). This says by how much, and whose code
// it is: what a change has to take away to fit.

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
 * counts the lines of code holding an instruction that ran at least `minRuns` times (its `Ir`). Positions are
 * absolute (`0x…`), relative to the last one (`+n`, `-n`) or the same (`*`); the line after `calls=` is a call's
 * inclusive cost at the call site, whose address still sets the base for the next relative position.
 */
export function codeFootprint(text: string, minRuns: number): CodeFootprint {
  const positions = /^positions:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? ['line'];
  if (positions[0] !== 'instr') throw new Error('codeFootprint needs a callgrind file written with --dump-instr=yes');
  const events = /^events:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
  const irColumn = positions.length + events.indexOf('Ir');
  if (irColumn < positions.length) throw new Error('the callgrind file has no Ir event');
  const names = new Map<string, string>();
  const nameOf = (spec: string): string => {
    const m = /^\((\d+)\)(?:\s+(.*))?$/.exec(spec);
    if (m === null) return spec;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return m[2] ?? names.get(m[1]!) ?? `(${m[1]})`;
  };
  const owner = new Map<number, string>();
  let fn = '';
  let address = 0;
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^(0x|[0-9+\-*])/.test(line)) {
      const fields = line.trim().split(/\s+/);
      address = nextAddress(fields[0]!, address);
      if (callCost) callCost = false;
      else if (Number(fields[irColumn] ?? 0) >= minRuns) owner.set(Math.floor(address / LINE_BYTES), fn);
    }
  }
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
