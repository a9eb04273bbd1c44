// Reading callgrind's output for `npm run bench:counts`: the totals of a run, and what they come to per update.
import { median } from './harness.js';

/**
 * A run's totals by callgrind event name (Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw with --cache-sim; Bc,
 * Bcm, Bi, Bim with --branch-sim).
 */
export type Totals = Record<string, number>;

/**
 * The totals of a callgrind output file: its `events:` line names the columns of its `summary:` line.
 * @throws Error when either line is missing, or when nothing was counted (the measured calls never ran).
 */
export function parseCallgrindTotals(text: string, file = 'callgrind output'): Totals {
  const events = /^events:/m.test(text) ? eventNames(text) : undefined;
  const summary = /^summary:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (events === undefined || summary === undefined) throw new Error(`${file}: no events or summary line`);
  if (summary.length !== events.length || summary.some((n) => !Number.isFinite(n)))
    throw new Error(`${file}: the summary line does not match the events line`);
  const t = totalsOf(events, summary);
  if ((t['Ir'] ?? 0) === 0) throw new Error(`${file}: nothing was counted (the measured calls never ran)`);
  return t;
}

/** Counts named by their events (`values[i]` is the count of `events[i]`). */
export function totalsOf(events: readonly string[], values: readonly number[]): Totals {
  const t: Totals = {};
  events.forEach((e, i) => (t[e] = values[i] ?? 0));
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
  /**
   * Mispredicted branches, conditional and indirect, under callgrind's simulated predictor (0 without
   * --branch-sim): a table of 16k two-bit counters indexed by the branch's address and the last few
   * outcomes, and the last target of each indirect branch. Far simpler than a host's predictor; like the
   * cache figures, it ranks, it does not predict.
   */
  mispredicts: number;
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
  const mispredicts = ((t['Bcm'] ?? 0) + (t['Bim'] ?? 0)) / updates;
  return { instructions, l1dMisses, l1iMisses, llMisses, estCycles: estimatedCycles(instructions, l1dMisses, llMisses), mispredicts };
}

/** The median of each figure over several processes, and how far their instruction counts spread (max / min − 1). */
export function medianPerUpdate(each: readonly PerUpdate[]): { median: PerUpdate; spread: number } {
  if (each.length === 0) throw new Error('no processes to summarize');
  const mid = (f: (p: PerUpdate) => number): number => median(each.map(f));
  const irs = each.map((p) => p.instructions);
  return {
    median: {
      instructions: mid((p) => p.instructions),
      l1dMisses: mid((p) => p.l1dMisses),
      l1iMisses: mid((p) => p.l1iMisses),
      llMisses: mid((p) => p.llMisses),
      estCycles: mid((p) => p.estCycles),
      mispredicts: mid((p) => p.mispredicts),
    },
    spread: Math.max(...irs) / Math.min(...irs) - 1,
  };
}

/** What `walkCostLines` hands over for each cost line of a callgrind output file. */
export interface CostLine {
  /** The function the line counts towards: its name as the file gives it (JIT code by its address). */
  fn: string;
  /** The line's position fields (`positions:`: a line number, or an instruction address and a line), raw. */
  position: readonly string[];
  /** Its costs, in the order of the `events:` line. */
  costs: readonly string[];
  /** The line right after `calls=`: the inclusive cost of a call at that position, not the function's own. */
  callCost: boolean;
}

/**
 * Visits every cost line of a callgrind output file with the function it belongs to: the one named by the
 * last `fn=` line. Names are compressed as `(id) name` the first time and `(id)` after, in `fn=` and `cfn=`
 * lines alike.
 */
export function walkCostLines(text: string, visit: (line: CostLine) => void): void {
  const positions = positionNames(text);
  const names = new Map<string, string>();
  const nameOf = (spec: string): string => {
    const m: (string | undefined)[] | null = /^\((\d+)\)(?:\s+(.*))?$/.exec(spec); // an unmatched group is undefined
    if (m === null) return spec;
    if (m[2] !== undefined) {
      names.set(m[1]!, m[2]);
      return m[2];
    }
    return names.get(m[1]!) ?? `(${m[1]})`;
  };
  let fn: string | undefined;
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[0-9+\-*]/.test(line)) {
      // Positions are absolute, or +n / -n / * relative to the last one; the costs follow.
      const fields = line.trim().split(/\s+/);
      if (fn !== undefined) visit({ fn, position: fields.slice(0, positions.length), costs: fields.slice(positions.length), callCost });
      callCost = false;
    }
  }
}

/** The names of a callgrind file's cost columns (`events:`), in order. */
export function eventNames(text: string): string[] {
  return /^events:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
}

/** The names of a callgrind file's position columns (`positions:`; `line` when absent). */
export function positionNames(text: string): string[] {
  return /^positions:[ \t]*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? ['line'];
}

/** Each function's own cost (what it ran itself, not what the functions it called ran), by event. */
export function selfCostsByFunction(text: string): { events: string[]; costs: Map<string, number[]> } {
  const events = eventNames(text);
  const costs = new Map<string, number[]>();
  walkCostLines(text, (line) => {
    if (line.callCost) return;
    let own = costs.get(line.fn);
    if (own === undefined) costs.set(line.fn, (own = new Array<number>(events.length).fill(0)));
    // A line may leave out trailing zeros.
    for (let i = 0; i < line.costs.length && i < events.length; i++) own[i]! += Number(line.costs[i]);
  });
  return { events, costs };
}

/**
 * V8 making code rather than running it: its optimizing compilers, lazy compiles and deoptimizations. Names
 * as callgrind writes C++ functions, return type and parameter lists included.
 */
const JIT_WORK =
  /\bv8::internal::(?:compiler|maglev|baseline)::|\bv8::internal::(?:Compiler|Deoptimizer|OptimizingCompileDispatcher)::|\bRuntime_(?:CompileOptimized|CompileLazy|CompileBaseline|NotifyDeoptimized)/;

/**
 * The instructions V8 spent compiling or deoptimizing (`JIT_WORK`), from `selfCostsByFunction`'s costs. In
 * measured ops they are a warm-up that did not finish, or code that keeps bailing out: counts that include
 * them compare the compiler's work, not the code's.
 */
export function jitWorkInstructions(events: readonly string[], costs: ReadonlyMap<string, readonly number[]>): number {
  const ir = events.indexOf('Ir');
  if (ir < 0) return 0;
  let n = 0;
  for (const [name, c] of costs) if (JIT_WORK.test(name)) n += c[ir] ?? 0;
  return n;
}

/** One entry of a `perf-<pid>.map` file, as V8 writes it with `--perf-basic-prof`: where a function's code lies. */
interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/**
 * Names the code at an address from a `perf-<pid>.map` file. V8 reuses code space, so an address may lie in
 * several entries: the last one written wins. Callgrind names JIT code by its address (`0x000000000d0df5c0`);
 * anything else is returned as it is.
 */
export function perfMapResolver(mapText: string): (fnName: string) => string {
  const ranges: CodeRange[] = [];
  for (const line of mapText.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line);
    if (m !== null) ranges.push({ start: parseInt(m[1]!, 16), end: parseInt(m[1]!, 16) + parseInt(m[2]!, 16), name: m[3]! });
  }
  return (fnName) => {
    const m = /^0x([0-9a-f]+)$/i.exec(fnName.trim());
    if (m === null) return fnName;
    const at = parseInt(m[1]!, 16);
    for (let i = ranges.length - 1; i >= 0; i--) if (ranges[i]!.start <= at && at < ranges[i]!.end) return ranges[i]!.name;
    return fnName;
  };
}
