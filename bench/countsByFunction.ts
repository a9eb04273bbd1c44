// bench:counts' view of a contender by function, from the first process of each: each function's own counts
// (JIT code named from V8's perf map) and the hot code it runs in, merged by name and printed.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { perfMapResolver, perUpdate, totalsOf, type selfCostsByFunction } from './callgrindTotals.js';
import type { CodeFootprint } from './codeFootprint.js';

/** A function's own counts in one process (JIT code named from V8's perf map). */
export interface FunctionCosts {
  name: string;
  instructions: number;
  l1dMisses: number;
  llMisses: number;
  l1iMisses: number;
  mispredicts: number;
}

/**
 * How to name the functions of a callgrind output file: JIT code from the `perf-<pid>.map` V8 wrote (which is
 * then deleted), with recursion levels (`'2`), C++ parameter lists and the build's folder left out.
 */
export function codeNames(text: string): (raw: string) => string {
  const pid = /^pid:\s*(\d+)/m.exec(text)?.[1];
  const mapFile = pid === undefined ? undefined : `/tmp/perf-${pid}.map`;
  let resolve = (name: string): string => name;
  if (mapFile !== undefined && existsSync(mapFile)) {
    resolve = perfMapResolver(readFileSync(mapFile, 'utf8'));
    rmSync(mapFile, { force: true });
  }
  return (raw) =>
    resolve(raw.replace(/'\d+$/, ''))
      .replace(/file:\/\/\S*?\/(dist|build)\//, '')
      .replace(/\(.*$/, '')
      .trim();
}

/** A footprint with its functions named (several raw names, e.g. recursion levels, may share one). */
export function named(f: CodeFootprint, name: (raw: string) => string): CodeFootprint {
  const byFunction = new Map<string, number>();
  for (const [raw, n] of f.byFunction) {
    const named = name(raw);
    byFunction.set(named, (byFunction.get(named) ?? 0) + n);
  }
  return { lines: f.lines, byFunction };
}

/** Each function's own counts (`selfCostsByFunction` of a callgrind output file), merged by name. */
export function functionCosts({ events, costs }: ReturnType<typeof selfCostsByFunction>, nameOf: (raw: string) => string): FunctionCosts[] {
  const merged = new Map<string, FunctionCosts>();
  for (const [raw, c] of costs) {
    const name = nameOf(raw);
    const m = merged.get(name) ?? { name, instructions: 0, l1dMisses: 0, llMisses: 0, l1iMisses: 0, mispredicts: 0 };
    const own = perUpdate(totalsOf(events, c), 1);
    m.instructions += own.instructions;
    m.l1dMisses += own.l1dMisses;
    m.llMisses += own.llMisses;
    m.l1iMisses += own.l1iMisses;
    m.mispredicts += own.mispredicts;
    merged.set(name, m);
  }
  return [...merged.values()].sort((a, b) => b.instructions - a.instructions);
}

export function printFunctions(contender: string, fns: readonly FunctionCosts[], top: number, updates: number, branches: boolean): void {
  const total = fns.reduce((n, f) => n + f.instructions, 0);
  console.log(`    ${contender}, its own counts by function (first process), per update:`);
  for (const f of fns.slice(0, top)) {
    const share = total > 0 ? ((100 * f.instructions) / total).toFixed(1) : '0.0';
    console.log(
      `      ${(f.instructions / updates).toFixed(0).padStart(7)} instr ${share.padStart(5)} %  ${(f.l1dMisses / updates).toFixed(1).padStart(6)} L1d  ${(f.llMisses / updates).toFixed(2).padStart(6)} LL  ${(f.l1iMisses / updates).toFixed(1).padStart(6)} L1i  ${branches ? `${(f.mispredicts / updates).toFixed(1).padStart(6)} mispredicted  ` : ''}${f.name.slice(0, 90)}`,
    );
  }
}

/** The footprint's total and its largest `shown` functions (10, or as many as `--functions` asks for). */
export function printFootprint(contender: string, f: CodeFootprint, shown: number): void {
  const top = [...f.byFunction].sort((a, b) => b[1] - a[1]).slice(0, shown);
  console.log(
    `    ${contender}: hot code (run in at least half of the updates) ${f.lines} lines of 64 bytes, ${((f.lines * 64) / 1024).toFixed(1)} KB; most of it:`,
  );
  console.log(`      ${top.map(([name, n]) => `${name.slice(0, 60)} ${n}`).join(', ')}`);
}
