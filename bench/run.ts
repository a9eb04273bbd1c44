// Entry point of `npm run bench`: runs the scenarios and prints a table (or JSON lines with --json).
//
//   npm run bench                     full run (the numbers in docs/benchmarks.md)
//   npm run bench -- --quick          smaller data sets, same shape (< 60 s on 2 cores)
//   npm run bench -- --json           one JSON object per row on stdout
//   npm run bench -- --only B1,B3     selected scenarios
//   npm run bench -- --runs 9         measured runs per variant (default 7, quick 3)
import os from 'node:os';
import { cpuTicks, stealPercent, type CpuTicks } from './hostSteal.js';
import { formatTable, setQuickSettle, type BenchOptions, type Row, type Scenario } from './harness.js';

// MobX (and any other library) in its production build, as it would be benchmarked.
process.env['NODE_ENV'] ??= 'production';

interface Args {
  quick: boolean;
  json: boolean;
  only: string[] | undefined;
  runs: number | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { quick: false, json: false, only: undefined, runs: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') a.quick = true;
    else if (arg === '--json') a.json = true;
    else if (arg === '--only')
      a.only = (argv[++i] ?? '')
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter((s) => s !== '');
    else if (arg.startsWith('--only='))
      a.only = arg
        .slice(7)
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter((s) => s !== '');
    else if (arg === '--runs') a.runs = Number(argv[++i]);
    else if (arg.startsWith('--runs=')) a.runs = Number(arg.slice(7));
    else throw new Error(`unknown argument ${JSON.stringify(arg)} (use --quick, --json, --only B1,B2, --runs N)`);
  }
  if (a.runs !== undefined && !(Number.isInteger(a.runs) && a.runs >= 1)) throw new Error('--runs needs a positive integer');
  return a;
}

async function loadScenarios(): Promise<Scenario[]> {
  // Loaded after NODE_ENV is set, so that libraries read it.
  const [{ b1 }, { b2 }, { b3 }, { b4 }, { b5 }] = await Promise.all([
    import('./b1Controllers.js'),
    import('./b2Scale.js'),
    import('./b3Policies.js'),
    import('./b4Informer.js'),
    import('./b5Freeze.js'),
  ]);
  return [b1, b2, b3, b4, b5];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if ((globalThis as { gc?: unknown }).gc === undefined)
    process.stderr.write('warning: run node with --expose-gc (npm run bench does) for gc between runs\n');
  const all = await loadScenarios();
  const unknown = (args.only ?? []).filter((id) => !all.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${all.map((s) => s.id).join(', ')}`);
  const selected = args.only === undefined ? all : all.filter((s) => args.only!.includes(s.id));
  const opts: BenchOptions = { quick: args.quick, warmup: 1, runs: args.runs ?? (args.quick ? 3 : 7) };
  setQuickSettle(args.quick);
  const started = Date.now();
  process.stderr.write(
    `rxkrt bench (${args.quick ? 'quick' : 'full'}): node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; warm-up ${opts.warmup}, ${opts.runs} measured runs per variant\n`,
  );
  const rows: Row[] = [];
  const ticksAtStart = cpuTicks();
  for (const s of selected) {
    process.stderr.write(`${s.id}: ${s.title}\n`);
    const t0 = Date.now();
    const ticks = cpuTicks();
    const got = await s.run(opts);
    process.stderr.write(`  ${s.id} took ${((Date.now() - t0) / 1000).toFixed(1)} s${stolen(ticks)}\n`);
    rows.push(...got);
    if (args.json) for (const r of got) process.stdout.write(`${JSON.stringify(r)}\n`);
    else process.stdout.write(`\n${s.id}: ${s.title}\n${formatTable(got)}\n`);
  }
  process.stderr.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s${stolen(ticksAtStart)}\n`);
}

/** ", x % of the CPU time stolen by other guests" since `from`, where the machine tells. */
function stolen(from: CpuTicks | undefined): string {
  const p = stealPercent(from, cpuTicks());
  return p === undefined ? '' : `, ${p.toFixed(1)} % of the CPU time stolen by other guests`;
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
