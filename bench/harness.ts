// The benchmark harness: variants of one scenario side by side in one process, gc between runs, median and p90.
//
// Every variant is set up once (untimed), then all variants do warm-up runs and `runs` measured runs, in
// rounds of one run each, in a fresh random order every round, so that drift (thermal, JIT, a noisy
// neighbour) and the place in a round hit every variant alike. Before each run: two scavenges and a pause
// (`settle`), so no run pays for another's young garbage. Ratios are against the variant marked
// `baseline`, measured in the same process and the same rounds. Where variants give their outputs, every
// variant's canonical output set must equal the baseline's after set-up and after every round.
import { assertSameOutputs } from './canonical.js';

/** One line of the results. */
export interface Row {
  scenario: string;
  variant: string;
  baseline: boolean;
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  runs: number;
  /**
   * Median CPU time (user + system) of the process during a run, in ms. Less sensitive than wall time to
   * other processes competing for the cores; includes GC helper threads.
   */
  cpu_ms: number;
  /** This variant's median cost per op / the baseline's (per run when either has no `ops`). */
  ratio_vs_baseline: number;
  /** Operations in one run (e.g. pod updates) and the median cost of one, in µs. */
  ops_per_run?: number;
  per_op_us?: number;
  /** Heap the variant's set-up retains after a full gc, in MB. */
  retained_mb?: number;
  /** Anything else worth printing (events seen, bytes per object, ...). */
  extra?: Record<string, number | string>;
  /** Set when this variant's full output was compared with the baseline's after set-up and after every run. */
  outputs_checked?: true;
  /** Every measured run's wall time in ms, in the order of the rounds (with `keepSamples`). */
  samples_ms?: number[];
}

/** One contender in a scenario. */
export interface Variant<C = unknown> {
  name: string;
  /** The variant others are divided by (exactly one per scenario). */
  baseline?: boolean;
  /** Builds the state the runs share (untimed). */
  setup(): C | Promise<C>;
  /** Untimed work before each run (e.g. fresh input objects). */
  prepare?(ctx: C, run: number): void | Promise<void>;
  /** The measured work. */
  run(ctx: C, run: number): void | Promise<void>;
  /** Untimed check after each run; throws when the run did not do the job. */
  verify?(ctx: C, run: number): void;
  /**
   * The variant's full output as `canonicalSet` makes it (after set-up, and after each run once `verify`
   * passed): it must equal the baseline's of the same round. Variants fed the same inputs run by run give it.
   */
  outputs?(ctx: C): string;
  /** Untimed work once a run is checked (e.g. closing the run's watcher before another variant runs). */
  after?(ctx: C, run: number): void | Promise<void>;
  /** Releases what setup built. */
  teardown?(ctx: C): void | Promise<void>;
  /** Operations per run, for a per-operation cost. */
  ops?: number;
  /** Extra numbers for the row, computed once the runs are over. */
  extra?(ctx: C): Record<string, number | string>;
}

export interface CompareOptions {
  warmup: number;
  runs: number;
  /** Keep every measured run's wall time in the row (`samples_ms`), for pairing over processes (bench:pairs). */
  keepSamples?: boolean;
  /**
   * Read what each set-up retains (`retained_mb`), between full gcs (default true). bench:pairs does not: a
   * process that times contenders must not run forced gcs before their rounds (see `scavenge`).
   */
  retainedHeap?: boolean;
}

type GcFunction = (options?: { type: 'minor' }) => void;

/** `--expose-gc`'s gc function (the bench scripts run with it), or undefined. */
function gcFunction(): GcFunction | undefined {
  return (globalThis as { gc?: GcFunction }).gc;
}

/** One scavenge, when node runs with --expose-gc. */
export function minorGc(): void {
  gcFunction()?.({ type: 'minor' });
}

/** One forced mark-compact (a bare `gc()`), when node runs with --expose-gc. */
export function forcedGc(): void {
  gcFunction()?.();
}

/**
 * Two full gcs, when node runs with --expose-gc: for measuring what a graph retains, since the old generation's
 * garbage counts in `heapUsed` until a full gc collects it. A bare `gc()` is a forced mark-compact (the only full
 * gc a script can ask for: on Node 20, `gc({ type: 'major' })` runs a scavenge, as `--trace-gc` shows); the second
 * collects what the first left to finalizers and weak references. Never before a timed run (see `scavenge`).
 */
export function fullGc(): void {
  forcedGc();
  forcedGc();
}

/**
 * The heap after full gcs until it stops shrinking (at most five pairs): what one pair leaves to weak
 * references and finalizers must not count as the next reading's.
 */
export function settledHeap(): number {
  let h = Infinity;
  for (let i = 0; i < 5; i++) {
    fullGc();
    const now = heapUsed();
    if (now >= h) return now;
    h = now;
  }
  return h;
}

/**
 * Two scavenges, when node runs with --expose-gc: what the harness runs before every timed run. A forced full gc
 * there made contenders taking turns in one process start their rounds from optimized code V8 had thrown away
 * (docs/benchmarks.md, "Forced full gcs and scavenges"); a scavenge leaves code alone and empties the young
 * generation, so no run pays for the last one's young garbage. The old generation's garbage stays for V8 to
 * collect when it decides to, as in a long-running controller.
 */
export function scavenge(): void {
  minorGc();
  minorGc();
}

/**
 * Two scavenges after a set-up: what the objects of a long-lived graph have been through on
 * their way to the old generation. Unaged, the graph set up last in a process reaches the old generation
 * through a full gc alone, and in `npm run bench:ab -- HEAD --only b1 --pairs 3 --no-age` (an A/A run)
 * process-by-process ratios spread over 0.84–1.10, against 0.95–1.05 aged; the hand-written controller's
 * figures did not depend on its place. Every set-up is aged, so that no contender's depend on it.
 */
export function age(): void {
  scavenge();
}

/** `--quick` settles with one scavenge instead of two: a quick run checks outputs, not speed. */
let quickSettle = false;

export function setQuickSettle(on: boolean): void {
  quickSettle = on;
}

/**
 * Two scavenges (see `scavenge`), then a pause for V8's concurrent threads. Without a pause, the sweeping a gc
 * leaves behind landed in the timed run (the main thread sweeps pages itself when it needs memory): with a
 * 200 MB heap that tripled the median of a 10 ms operation. The pause grows with the heap.
 */
export async function settle(): Promise<void> {
  if (quickSettle) minorGc();
  else scavenge();
  const mb = heapUsed() / 1048576;
  await new Promise((resolve) => setTimeout(resolve, Math.min(300, 5 + mb / 2)));
}

export function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

/** Wall time of `fn` in ms, measured with process.hrtime.bigint, and the process's CPU time over it. */
export async function timeMs(fn: () => void | Promise<void>): Promise<{ wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = fn();
  if (r !== undefined) await r;
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

export function p90(xs: readonly number[]): number {
  return quantile(xs, 0.9);
}

function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** Logs progress on stderr, so that stdout stays a clean table or JSON stream. */
export function progress(msg: string): void {
  process.stderr.write(`  · ${msg}\n`);
}

/** Runs the variants of one scenario side by side and returns one row each. */
export async function compare(scenario: string, variants: readonly Variant[], opts: CompareOptions): Promise<Row[]> {
  const ctxs: unknown[] = [];
  const retained: number[] = [];
  const readHeap = opts.retainedHeap !== false;
  for (const v of variants) {
    if (!readHeap) {
      ctxs.push(await v.setup());
      age();
      continue;
    }
    fullGc();
    const before = heapUsed();
    ctxs.push(await v.setup());
    age();
    fullGc();
    retained.push((heapUsed() - before) / 1048576);
  }
  const baseIdx = Math.max(
    0,
    variants.findIndex((v) => v.baseline === true),
  );
  const checked = variants[baseIdx]!.outputs !== undefined;
  const snapshots: (string | undefined)[] = variants.map(() => undefined);
  const checkOutputs = (when: string): void => {
    if (!checked) return;
    for (let i = 0; i < variants.length; i++) {
      if (i === baseIdx || snapshots[i] === undefined) continue;
      assertSameOutputs(`${scenario}, ${variants[i]!.name}, ${when}`, snapshots[i]!, snapshots[baseIdx]!);
    }
    snapshots.fill(undefined);
  };
  for (let i = 0; i < variants.length; i++) snapshots[i] = variants[i]!.outputs?.(ctxs[i]);
  checkOutputs('after set-up');
  const samples: number[][] = variants.map(() => []);
  const cpu: number[][] = variants.map(() => []);
  const total = opts.warmup + opts.runs;
  for (let r = 0; r < total; r++) {
    for (const i of shuffled(variants.map((_, k) => k))) {
      const v = variants[i]!;
      const ctx = ctxs[i];
      if (v.prepare !== undefined) await v.prepare(ctx, r);
      await settle();
      const t = await timeMs(() => v.run(ctx, r));
      v.verify?.(ctx, r);
      if (checked) snapshots[i] = v.outputs?.(ctx);
      await v.after?.(ctx, r);
      if (r >= opts.warmup) {
        samples[i]!.push(t.wall);
        cpu[i]!.push(t.cpu);
      }
    }
    checkOutputs(`after run ${r}`);
  }
  progress(
    `${scenario}: ${variants.map((v, i) => `${v.name} ${median(samples[i]!).toFixed(2)} ms`).join(', ')}${checked ? '; outputs equal' : ''}`,
  );
  const baseV = variants[baseIdx]!;
  const perOp = (v: Variant, m: number): number => (v.ops !== undefined && baseV.ops !== undefined ? m / v.ops : m);
  const base = perOp(baseV, median(samples[baseIdx]!));
  const rows: Row[] = variants.map((v, i) => {
    const m = median(samples[i]!);
    const row: Row = {
      scenario,
      variant: v.name,
      baseline: i === baseIdx,
      median_ms: round(m),
      p90_ms: round(p90(samples[i]!)),
      min_ms: round(Math.min(...samples[i]!)),
      runs: samples[i]!.length,
      cpu_ms: round(median(cpu[i]!)),
      ratio_vs_baseline: Number((perOp(v, m) / base).toPrecision(4)),
    };
    if (readHeap) row.retained_mb = round(retained[i]!, 2);
    if (v.ops !== undefined) {
      row.ops_per_run = v.ops;
      row.per_op_us = round((m * 1000) / v.ops, 3);
    }
    if (v.extra !== undefined) row.extra = v.extra(ctxs[i]);
    if (checked && v.outputs !== undefined) row.outputs_checked = true;
    if (opts.keepSamples === true) row.samples_ms = samples[i]!.map((x) => round(x, 4));
    return row;
  });
  for (let i = 0; i < variants.length; i++) await variants[i]!.teardown?.(ctxs[i]);
  return rows;
}

/** A copy of `xs` in random order (Fisher–Yates). */
export function shuffled<T>(xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A plain-text table of rows, one block per scenario. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['scenario', 'variant', 'median ms', 'p90 ms', 'cpu ms', 'runs', 'ratio', 'µs/op', 'retained MB', 'outputs', 'extra'];
  const lines = rows.map((r) => [
    r.scenario,
    r.variant + (r.baseline && rows.filter((x) => x.scenario === r.scenario).length > 1 ? ' (baseline)' : ''),
    fmt(r.median_ms),
    fmt(r.p90_ms),
    fmt(r.cpu_ms),
    String(r.runs),
    ratio(r.ratio_vs_baseline),
    r.per_op_us === undefined ? '' : fmt(r.per_op_us),
    r.retained_mb === undefined ? '' : r.retained_mb.toFixed(1),
    r.outputs_checked === true ? 'equal' : '',
    r.extra === undefined
      ? ''
      : Object.entries(r.extra)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmtLine = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [fmtLine(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`];
  let last = '';
  for (let i = 0; i < lines.length; i++) {
    if (rows[i]!.scenario !== last && last !== '') out.push(fmtLine(header.map(() => '')));
    last = rows[i]!.scenario;
    out.push(fmtLine(lines[i]!));
  }
  return out.join('\n');
}

function ratio(x: number): string {
  return x >= 0.01 ? x.toFixed(3) : x.toPrecision(2);
}

function fmt(x: number): string {
  if (x >= 100) return x.toFixed(1);
  if (x >= 1) return x.toFixed(2);
  return x.toFixed(3);
}

/** Options every scenario receives. */
export interface BenchOptions {
  quick: boolean;
  warmup: number;
  runs: number;
}

/** A scenario module: id (B1, ...), a title, and the function that measures it. */
export interface Scenario {
  id: string;
  title: string;
  run(opts: BenchOptions): Promise<Row[]>;
}
