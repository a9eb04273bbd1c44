// `npm run bench:pairs`: the headline ratios against the strong hand-written controller, each judged against
// its target on the median of rounds paired over several processes, with intervals.
//
//   npm run bench:pairs                         every pair, 3 pairs of processes (6 processes)
//   npm run bench:pairs -- --quick              small data sets and few rounds: checks outputs, not speed
//   npm run bench:pairs -- --only b1batch,b2burst --pairs 4
//   npm run -s bench:pairs -- --json            one JSON object per judged ratio on stdout
//   npm run bench:pairs -- --out FILE           the text on stdout, and the JSON lines written to FILE too
//   npm run bench:pairs -- --only b1sync --v8 no-incremental-marking
//                                               the child processes run under these V8 flags (comma-separated,
//                                               without dashes): evidence of what a ratio owes to V8, never a verdict
//
// Each process sets up the contenders of a pair scenario (the two of a process pair in opposite orders, so
// that neither is always set up first), runs rounds of one op each in a random order, each after a gc and
// a pause, and compares every contender's outputs with the hand-written controller's after set-up and
// after every round (harness.ts `compare`). The parent pools the rounds: the figure judged is the median of
// the per-round ratios, with bootstrap intervals over rounds and over processes (pairedRatio.ts).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compare, type Row, type Variant } from './harness.js';
import { cpuTicks, stealPercent } from './hostSteal.js';
import { describeRatio, pairedRatio, type PairedRatio } from './pairedRatio.js';
import { PAIR_SCENARIOS, type PairScenario } from './pairScenarios.js';
import { choice, defineCli, flag, idList, integer, text, type ArgsOf } from './cli.js';

process.env['NODE_ENV'] ??= 'production';

const SCENARIO_IDS = PAIR_SCENARIOS.map((s) => s.id);

const CLI = defineCli({
  tool: 'bench:pairs',
  usage: `bench:pairs -- [--only ${SCENARIO_IDS.join(',')}] [--pairs N] [--quick] [--json] [--out FILE] [--v8 flag,flag=value]`,
  options: {
    only: idList('pair scenario', SCENARIO_IDS, SCENARIO_IDS),
    pairs: integer({ min: 1 }, 3),
    quick: flag(),
    json: flag(),
    out: text(),
    v8: text(),
    /** Set in the child processes: the order in which they set the contenders up. */
    child: choice(['forward', 'reverse']),
  },
});
type Args = ArgsOf<typeof CLI>;

/** What a child reports per scenario: each contender's row (with its samples) and the steal. */
interface ChildReport {
  id: string;
  rows: Row[];
  steal: number | undefined;
}

async function child(args: Args): Promise<void> {
  for (const s of selected(args)) {
    const variants: Variant[] = s.variants(args.quick);
    const ordered = args.child === 'reverse' ? [...variants].reverse() : variants;
    const ticks = cpuTicks();
    const rows = await compare(s.title, ordered, { ...s.rounds(args.quick), keepSamples: true, retainedHeap: false });
    const report: ChildReport = { id: s.id, rows, steal: stealPercent(ticks, cpuTicks()) };
    console.log(JSON.stringify(report));
  }
}

function selected(args: Args): PairScenario[] {
  return PAIR_SCENARIOS.filter((s) => args.only.includes(s.id));
}

/** One judged ratio: `variant` over `over`, against `target`. */
interface Judged {
  scenario: string;
  variant: string;
  over: string;
  median_ms: number;
  ratio_vs_baseline: number;
  interval_processes: [number, number];
  interval_rounds: [number, number];
  per_process: number[];
  /** The bound, or `none (evidence)` for a ratio reported but not judged. */
  target: string;
  met: boolean | null;
  outputs_checked: boolean;
  processes: number;
  steal_percent: (number | null)[];
  /** V8 flags the processes ran under (`--v8`); absent for Node's defaults, the only conditions a target is judged in. */
  v8_flags?: string[];
}

async function main(): Promise<void> {
  const args = CLI.parseOrExit();
  if (args.child !== undefined) {
    await child(args);
    // B4's API server would keep the process alive.
    process.exit(0);
  }
  const v8Flags = v8FlagsOf(args.v8);
  const reports: ChildReport[][] = [];
  for (let p = 0; p < args.pairs; p++) {
    for (const order of ['forward', 'reverse']) {
      process.stderr.write(`  · process ${reports.length + 1} of ${2 * args.pairs} (${order} set-up order)\n`);
      const childArgs = [...process.argv.slice(2), '--child', order];
      const out = execFileSync(process.execPath, [...v8Flags, '--expose-gc', fileURLToPath(import.meta.url), ...childArgs], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 256 << 20,
      });
      reports.push(
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as ChildReport),
      );
    }
  }
  const judged: Judged[] = [];
  for (const s of selected(args)) {
    const each = reports.map((r) => r.find((x) => x.id === s.id)!);
    const samples = (name: string): number[][] => each.map((r) => r.rows.find((row) => row.variant === name)!.samples_ms!);
    const checked = (name: string): boolean => each.every((r) => r.rows.find((row) => row.variant === name)!.outputs_checked === true);
    for (const t of s.targets) {
      const r: PairedRatio = pairedRatio(samples(t.variant), samples(t.over));
      const all = samples(t.variant).flat();
      const ratio = r.median;
      judged.push({
        scenario: s.title,
        variant: t.variant,
        over: t.over,
        median_ms: Number(median(all).toFixed(4)),
        ratio_vs_baseline: Number(ratio.toFixed(4)),
        interval_processes: [Number(r.processesLo.toFixed(4)), Number(r.processesHi.toFixed(4))],
        interval_rounds: [Number(r.roundsLo.toFixed(4)), Number(r.roundsHi.toFixed(4))],
        per_process: r.perProcess.map((x) => Number(x.toFixed(4))),
        target: t.atLeast !== undefined ? `≥ ${t.atLeast}` : t.atMost !== undefined ? `≤ ${t.atMost}` : 'none (evidence)',
        met: v8Flags.length > 0 ? null : t.atLeast !== undefined ? ratio >= t.atLeast : t.atMost !== undefined ? ratio <= t.atMost : null,
        outputs_checked: checked(t.variant) && checked(t.over),
        processes: each.length,
        steal_percent: each.map((x) => (x.steal === undefined ? null : Number(x.steal.toFixed(1)))),
        ...underFlags(v8Flags),
      });
      if (!args.json)
        console.log(
          `${s.title}: ${judged.at(-1)!.variant} / ${judged.at(-1)!.over}, paired: ${describeRatio(r)}; ${verdict(judged.at(-1)!)}`,
        );
    }
    for (const m of s.perProcessTargets ?? []) {
      const values = each.map((x) => m.value(x.rows));
      const med = median(values);
      judged.push({
        scenario: s.title,
        variant: m.name,
        over: 'hand-written',
        median_ms: NaN,
        ratio_vs_baseline: Number(med.toFixed(4)),
        interval_processes: [Math.min(...values), Math.max(...values)],
        interval_rounds: [NaN, NaN],
        per_process: values.map((v) => Number(v.toFixed(4))),
        target: `≤ ${m.atMost}`,
        met: v8Flags.length > 0 ? null : med <= m.atMost,
        outputs_checked: true,
        processes: each.length,
        steal_percent: each.map((x) => (x.steal === undefined ? null : Number(x.steal.toFixed(1)))),
        ...underFlags(v8Flags),
      });
      if (!args.json)
        console.log(
          `${s.title}: ${m.name}: median over processes ${med.toFixed(3)} (range ${values.map((v) => v.toFixed(3)).join(' ')}); ${verdict(judged.at(-1)!)}`,
        );
    }
  }
  if (args.json) for (const j of judged) console.log(JSON.stringify(j));
  if (args.out !== undefined) writeFileSync(args.out, judged.map((j) => JSON.stringify(j) + '\n').join(''));
}

function verdict(j: Judged): string {
  if (j.v8_flags !== undefined) return `evidence under ${j.v8_flags.join(' ')}, not judged`;
  return j.met === null ? 'evidence, no target' : `target ${j.target}: ${j.met ? 'met' : 'NOT met'}`;
}

/** `--v8 a,b=1` as Node's arguments `--a --b=1`; a flag is a lower-case name, with a value after `=` if any. */
function v8FlagsOf(given: string | undefined): string[] {
  if (given === undefined) return [];
  return given.split(',').map((f) => {
    if (!/^[a-z0-9][a-z0-9-]*(=[\w.-]+)?$/.test(f)) {
      console.error(
        `bench:pairs: --v8 takes V8 flags without their dashes, comma-separated (no-incremental-marking); got ${JSON.stringify(f)}`,
      );
      process.exit(2);
    }
    return `--${f}`;
  });
}

/** A ratio measured under flags says so in its row (and is judged against no bound, see `met`). */
function underFlags(flags: readonly string[]): Pick<Judged, 'v8_flags'> {
  return flags.length === 0 ? {} : { v8_flags: [...flags] };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

await main();
