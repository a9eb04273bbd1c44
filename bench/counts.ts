// `npm run bench:counts -- [revision]`: instructions and simulated cache misses per update, under callgrind.
//
// Timings on this shared host drift by more than most changes are worth (bench:ab needs six processes to
// tell 5 % apart). Callgrind counts instead: the instructions an op executes, and the misses of a simulated
// two-level cache, which do not depend on what the host's other guests are doing. Each contender runs in
// processes of its own under callgrind, with V8 made repeatable (one thread, fixed seeds, a fixed gc
// schedule, no address randomization); countsChild.ts runs the ops. Repeated processes of one build agree
// within 0.1 % on instructions (0.8 % in the burst).
//
// How far to trust a difference between two builds: where code and data land still differs between two
// builds, even of the same engine code in two folders. At e6b187b, against itself built elsewhere, instructions
// agreed within 0.7 %, last-level misses within 1.3 %, and first-level data misses differed by up to 36 % (B1 as
// 1000 transactions, whose small working set sits at the edge of the simulated 32 KB). Read instructions and
// last-level misses; first-level figures only when they move a lot in every scenario.
//
// Work V8 does to make code (its compilers, deoptimizations) is counted like any other; when it exceeds 0.2 %
// of a process's instructions the report flags the contender with a line starting `!` (see `jitWorkWarning`).
//
// What the counts leave out: time. A miss costs what the hardware makes of it (misses that overlap cost less
// than misses in a row, and the real prefetchers hide some), and the simulated last-level cache is smaller
// than the host's, in proportion to the smaller data set. `est. cycles` weighs the counts with callgrind's
// old rule of thumb (1 per instruction, 10 per first-level data miss, 100 per last-level miss); it ranks
// changes, it does not predict milliseconds. Decide with the counts, confirm with bench:ab.
//
//   npm run bench:counts                       this build and the strong hand-written controller
//   npm run bench:counts -- HEAD~1             ... and another revision's build, with ratios against it
//   npm run bench:counts -- main --only burst,fanout --repeats 5
//   options: --only burst,fanout,b1,b1tx,b1sync  --repeats N (processes per contender, default 3)  --ops N (measured
//            ops per process, default 8)  --warm N (untimed ops first, default 60)  --pods N (B2's pods,
//            default 5000)  --ll KB (simulated last-level cache, default 2048)  --i1 KB (simulated instruction
//            cache, default 32; a power of two, as --ll)  --functions N (also print each
//            contender's N costliest functions by their own instructions, with their first-level data, last-level and code misses,
//            from its first process, run with V8's --perf-basic-prof so that JIT code can be named)
//            --footprint (also print how much code each contender runs in at least half of its updates, in
//            64-byte lines, and whose: its 10 largest functions, or N with --functions N; its first process runs
//            with callgrind's --dump-instr=yes)  --branches (also simulate branch prediction, callgrind's
//            --branch-sim=yes, and print mispredicted branches per update, conditional and indirect together, in
//            the table and by function)  --lean (also count the lean engine, bench/leanEngine.ts, in B1's
//            scenarios)
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRevision, checkoutName, repo } from './revision.js';
import {
  jitWorkInstructions,
  medianPerUpdate,
  parseCallgrindTotals,
  perUpdate,
  selfCostsByFunction,
  type PerUpdate,
  type Totals,
} from './callgrindTotals.js';
import { countsShape } from './b2Shape.js';
import { codeFootprint, type CodeFootprint } from './codeFootprint.js';
import { codeNames, functionCosts, named, printFootprint, printFunctions, type FunctionCosts } from './countsByFunction.js';
import { defineCli, flag, idList, integer, text, type ArgsOf } from './cli.js';

const SCENARIOS = ['burst', 'fanout', 'b1', 'b1tx', 'b1sync'];
/** What runs without `--only`: the update scenarios (the build, `b1sync`, when asked for). */
const DEFAULT_SCENARIOS = ['burst', 'fanout', 'b1', 'b1tx'];
/** The lean engine's row (`--lean`). */
const LEAN = 'lean engine';

const CLI = defineCli({
  tool: 'bench:counts',
  usage: `bench:counts -- [revision] [--only ${SCENARIOS.join(',')}] [--repeats N] [--ops N] [--warm N] [--pods N] [--ll KB] [--i1 KB] [--functions N] [--footprint] [--branches] [--lean]`,
  options: {
    only: idList('scenario', SCENARIOS, DEFAULT_SCENARIOS),
    repeats: integer({ min: 1 }, 3),
    ops: integer({ min: 1 }, 8),
    warm: integer({ min: 0 }, 60),
    pods: integer({ min: 1000 }, 5000),
    /** The simulated last-level cache, in KB. */
    ll: integer({ min: 64 }, 2048),
    /** The simulated first-level instruction cache, in KB (callgrind wants a power of two). */
    i1: integer({ min: 1 }, 32),
    /** Print each contender's top functions (from the first process of each), this many; 0: none. */
    functions: integer({ min: 1 }, 0),
    /** Print each contender's hot code (from the first process of each). */
    footprint: flag(),
    /** Simulate branch prediction too, and print the mispredicted branches. */
    branches: flag(),
    /** Count the lean engine (bench/leanEngine.ts) too, in B1's scenarios (it takes pod updates only). */
    lean: flag(),
  },
  positionals: { revision: text() },
  check: (a) => {
    if (a.pods % 1000 !== 0) return '--pods needs a multiple of 1000 (B2 has 1000 pods per namespace)';
    for (const [name, kb] of [
      ['--ll', a.ll],
      ['--i1', a.i1],
    ] as const)
      if ((kb & (kb - 1)) !== 0) return `${name} needs a power of two (callgrind's caches have a power-of-two number of sets)`;
    return undefined;
  },
});
type Args = ArgsOf<typeof CLI>;

interface Job {
  scenario: string;
  contender: string;
  /** The dist folder, 'hand' for the hand-written controller, or 'lean' for the lean engine. */
  target: string;
}

/** What one op is counted in: updates (pods updated, or recomputed by the fan-out). */
function updatesPerOp(scenario: string, args: Args): number {
  const shape = countsShape(args.pods);
  return scenario === 'burst' ? shape.burst : scenario === 'fanout' ? shape.fanout : 1000;
}

const V8_REPEATABLE = [
  '--single-threaded',
  '--predictable',
  '--predictable-gc-schedule',
  '--no-flush-bytecode',
  '--hash-seed=1',
  '--random-seed=1',
];

/** One process's totals, and for the first process of a job, its costs by function and its hot code if asked. */
interface Counted {
  totals: Totals;
  /** Instructions V8 spent compiling or deoptimizing inside the measured ops (see `jitWorkInstructions`). */
  jitWork: number;
  functions?: FunctionCosts[];
  footprint?: CodeFootprint;
}

function runJob(job: Job, args: Args, dir: string, n: number): Promise<Counted> {
  const byFunction = args.functions > 0 && n === 0;
  const withFootprint = args.footprint && n === 0;
  const out = join(dir, `${job.scenario}-${job.contender.replace(/[^a-z0-9+]/gi, '_')}-${n}.out`);
  const child = fileURLToPath(new URL('./countsChild.js', import.meta.url));
  const argv = [
    'x86_64',
    '-R',
    'valgrind',
    '--tool=callgrind',
    '--cache-sim=yes',
    `--I1=${args.i1 * 1024},8,64`,
    '--D1=32768,8,64',
    `--LL=${args.ll * 1024},16,64`,
    '--collect-atstart=no',
    '--toggle-collect=Builtins_ArrayPrototypeFindLastIndex',
    `--callgrind-out-file=${out}`,
    ...(withFootprint ? ['--dump-instr=yes'] : []),
    ...(args.branches ? ['--branch-sim=yes'] : []),
    process.execPath,
    '--allow-natives-syntax',
    '--expose-gc',
    ...V8_REPEATABLE,
    // Where V8 put each function's code, so that callgrind's addresses can be named.
    ...(byFunction || withFootprint ? ['--perf-basic-prof'] : []),
    child,
    job.target,
    job.scenario,
    String(args.pods),
    String(args.warm),
    String(args.ops),
  ];
  return new Promise((resolve, reject) => {
    execFile('setarch', argv, { cwd: repo, maxBuffer: 16 << 20 }, (err, _stdout, stderr) => {
      if (err !== null) {
        reject(
          new Error(
            `${job.contender} (${job.scenario}) failed under callgrind: ${err.message}\n${stderr.split('\n').slice(-15).join('\n')}`,
          ),
        );
        return;
      }
      const text = readFileSync(out, 'utf8');
      const totals = parseCallgrindTotals(text, out);
      const own = selfCostsByFunction(text);
      const counted: Counted = { totals, jitWork: jitWorkInstructions(own.events, own.costs) };
      if (byFunction || withFootprint) {
        const name = codeNames(text);
        if (byFunction) counted.functions = functionCosts(own, name);
        // Hot: run in at least half of the measured updates.
        if (withFootprint) counted.footprint = named(codeFootprint(text, (args.ops * updatesPerOp(job.scenario, args)) / 2), name);
      }
      resolve(counted);
    });
  });
}

/** Runs the jobs `repeats` times each, as many at once as there are cores. */
async function runAll(jobs: readonly Job[], args: Args, dir: string): Promise<Map<Job, Counted[]>> {
  const queue: Array<{ job: Job; n: number }> = [];
  for (let n = 0; n < args.repeats; n++) for (const job of jobs) queue.push({ job, n });
  const results = new Map<Job, Counted[]>(jobs.map((j) => [j, []]));
  const total = queue.length;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      results.get(item.job)!.push(await runJob(item.job, args, dir, item.n));
      process.stderr.write(`\r  · ${++done}/${total} processes under callgrind`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(cpus().length, queue.length)) }, worker));
  process.stderr.write('\n');
  return results;
}

/**
 * Flags a contender whose measured ops included V8 compiling or deoptimizing code for more than 0.2 % of its
 * instructions in some process: a warm-up that did not finish, or code that bails out again and again (round
 * 13 found `ScratchList.reset` doing so about 430 times per process). Its counts then include that work.
 */
function jitWorkWarning(contender: string, processes: readonly Counted[], updates: number): string | undefined {
  let worst = 0;
  let share = 0;
  for (const p of processes) {
    const perUpdate = p.jitWork / updates;
    if (perUpdate > worst) {
      worst = perUpdate;
      share = p.jitWork / (p.totals['Ir'] ?? Infinity);
    }
  }
  if (share <= 0.002) return undefined;
  return (
    `  ! ${contender}: V8 compiled or deoptimized code during the measured ops, ${worst.toFixed(0)} instructions per update ` +
    `(${(100 * share).toFixed(1)} %) in its worst process; the counts include it. To see why, run the child with ` +
    `\`node ${V8_REPEATABLE.join(' ')} --allow-natives-syntax --expose-gc --trace-deopt --trace-opt build/bench/countsChild.js ...\``
  );
}

const TITLES: Record<string, string> = {
  burst: `B2's burst: ${countsShape(1000).burst} pod updates in one batch`,
  fanout: "B2's fan-out: a selector change recomputing 1000 pods",
  b1: 'B1: 1000 pod updates in one batch',
  b1tx: 'B1: 1000 pod updates, one transaction each (the hand-written controller drains after each)',
  b1sync: "B1's initial sync: the graph built from 1000 fresh pods (counts per pod)",
};

async function main(): Promise<void> {
  const args = CLI.parseOrExit();
  for (const tool of ['valgrind', 'setarch']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`bench:counts needs ${tool} (Debian: apt-get install ${tool === 'valgrind' ? 'valgrind' : 'util-linux'})`);
    }
  }
  const hereName = checkoutName();
  const contenders: Array<{ name: string; target: string }> = [
    { name: 'hand-written', target: 'hand' },
    { name: hereName, target: join(repo, 'build') },
  ];
  let otherName: string | undefined;
  if (args.revision !== undefined) {
    const other = buildRevision(args.revision);
    otherName = other.sha === hereName ? `${other.sha}(other)` : other.sha;
    contenders.push({ name: otherName, target: other.dist });
  }
  if (args.lean) contenders.push({ name: LEAN, target: 'lean' });
  /** The lean engine takes pod updates only: B2's scenarios leave it out. */
  const contendersOf = (scenario: string): typeof contenders =>
    scenario.startsWith('b1') ? contenders : contenders.filter((c) => c.target !== 'lean');
  console.log(
    `bench:counts: per update, under callgrind (I1 ${args.i1} KB, D1 32 KB, LL ${args.ll} KB; B2 at ${args.pods} pods); node ${process.version}; ` +
      `median of ${args.repeats} processes per contender, ${args.ops} measured ops each after ${args.warm} untimed ones, each op after two scavenges`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'rxkrt-counts-'));
  try {
    const jobs: Job[] = [];
    for (const scenario of args.only) for (const c of contendersOf(scenario)) jobs.push({ scenario, contender: c.name, target: c.target });
    const results = await runAll(jobs, args, dir);
    for (const scenario of args.only) {
      const processesOf = (contender: string): Counted[] =>
        results.get(jobs.find((j) => j.scenario === scenario && j.contender === contender)!)!;
      const updates = args.ops * updatesPerOp(scenario, args);
      console.log(`\n${TITLES[scenario]}`);
      console.log(
        `  ${'contender'.padEnd(22)} ${'instructions'.padStart(12)} ${'L1d misses'.padStart(11)} ${'LL misses'.padStart(10)} ${'est. cycles'.padStart(12)} ${'L1i misses'.padStart(11)}${args.branches ? ` ${'mispredicts'.padStart(11)}` : ''}  ${'spread'.padStart(7)}  × hand-written`,
      );
      const sums = new Map<string, { median: PerUpdate; spread: number }>();
      const contenders = contendersOf(scenario);
      for (const c of contenders) {
        sums.set(c.name, medianPerUpdate(processesOf(c.name).map((r) => perUpdate(r.totals, updates))));
      }
      const hand = sums.get('hand-written')!.median;
      for (const c of contenders) {
        const { median: m, spread } = sums.get(c.name)!;
        const vsHand =
          c.name === 'hand-written'
            ? ''
            : `${(m.estCycles / hand.estCycles).toFixed(3)} (instructions ${(m.instructions / hand.instructions).toFixed(3)})`;
        console.log(
          `  ${c.name.padEnd(22)} ${m.instructions.toFixed(0).padStart(12)} ${m.l1dMisses.toFixed(1).padStart(11)} ${m.llMisses.toFixed(2).padStart(10)} ${m.estCycles.toFixed(0).padStart(12)} ${m.l1iMisses.toFixed(1).padStart(11)}${args.branches ? ` ${m.mispredicts.toFixed(1).padStart(11)}` : ''}  ${(100 * spread).toFixed(2).padStart(6)}%  ${vsHand}`,
        );
      }
      for (const c of contenders) {
        const warning = jitWorkWarning(c.name, processesOf(c.name), updates);
        if (warning !== undefined) console.log(warning);
      }
      if (otherName !== undefined) {
        const a = sums.get(hereName)!.median;
        const b = sums.get(otherName)!.median;
        const r = (x: number, y: number): string => (x / y).toFixed(4);
        console.log(
          `  ${hereName} / ${otherName}: instructions ${r(a.instructions, b.instructions)}, L1d misses ${r(a.l1dMisses, b.l1dMisses)}, LL misses ${r(a.llMisses, b.llMisses)}, est. cycles ${r(a.estCycles, b.estCycles)}, L1i misses ${r(a.l1iMisses, b.l1iMisses)}`,
        );
      }
      if (args.footprint) {
        for (const c of contenders) {
          const f = processesOf(c.name).find((r) => r.footprint !== undefined)?.footprint;
          if (f !== undefined) printFootprint(c.name, f, Math.max(10, args.functions));
        }
      }
      if (args.functions > 0) {
        for (const c of contenders) {
          const fns = processesOf(c.name).find((r) => r.functions !== undefined)?.functions ?? [];
          printFunctions(c.name, fns, args.functions, updates, args.branches);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
