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
import { defineCli, flag, idList, integer } from './cli.js';

// MobX (and any other library) in its production build, as it would be benchmarked.
process.env['NODE_ENV'] ??= 'production';

/** The scenarios by id, loaded after NODE_ENV is set, so that libraries read it. */
const SCENARIOS: Record<string, () => Promise<Scenario>> = {
  B1: async () => (await import('./b1Controllers.js')).b1,
  B2: async () => (await import('./b2Scale.js')).b2,
  B3: async () => (await import('./b3Policies.js')).b3,
  B4: async () => (await import('./b4Informer.js')).b4,
  B5: async () => (await import('./b5Freeze.js')).b5,
};

const CLI = defineCli({
  tool: 'bench',
  usage: `bench -- [--quick] [--json] [--only ${Object.keys(SCENARIOS).join(',')}] [--runs N]`,
  options: {
    quick: flag(),
    json: flag(),
    only: idList('scenario', Object.keys(SCENARIOS)),
    runs: integer({ min: 1 }),
  },
});

async function main(): Promise<void> {
  const args = CLI.parseOrExit();
  if ((globalThis as { gc?: unknown }).gc === undefined)
    process.stderr.write('warning: run node with --expose-gc (npm run bench does) for gc between runs\n');
  const all = await Promise.all(Object.values(SCENARIOS).map((load) => load()));
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
