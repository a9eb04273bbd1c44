// `npm run bench:ab -- <git revision>`: this build against another revision's, in one process, op by op.
//
// On a shared host the speed of the machine drifts by more than most changes are worth, and two processes
// run minutes apart do not see the same machine. Here both builds (and the strong hand-written controller,
// strongHandWritten.ts) are loaded side by side as separate module graphs, and every round runs one op of each, in a random order,
// each after the harness's gc and pause. The figure to read is the paired ratio: in each round, this
// build's time over the other's, whose median (with a bootstrap 95% interval) is what the change is worth.
//
//   npm run bench:ab -- HEAD~1                  B1 (one batch, 1000 transactions) and B2 (burst, fan-out)
//   npm run bench:ab -- main --only b1 --rounds 600
//   npm run bench:ab -- main --only b1same      B1's batch where no Workload changes (each pod's phase flips)
//   npm run bench:ab -- main --only b1sync      B1's initial sync: each op builds a graph of 1000 fresh pods
//   npm run bench:ab -- 2bd0707 --quick         B2 at the quick shape (5k pods)
//   npm run bench:ab -- main --only b1 --pairs 4 --rounds 100     8 processes: an interval over processes worth reading
//
// The other revision is exported with `git archive` into the system's temporary folder and built there
// with this checkout's node_modules; its `bench/rxkrtWorkloads.ts` builds its graph, so it must have one.
//
// Whichever build sets up its graph first runs measurably differently (an A/A run of one build against
// itself gave 1.09 for B1, 0.89 for the burst and 1.26 for the fan-out to the build set up second): where
// each graph lands in the heap matters at this scale. So the measurement runs in pairs of child processes,
// the builds' places swapped between the two (SET_UP_ORDERS), and the per-round ratios are pooled. Every
// graph is aged once set up (two scavenges, see `age` in harness.ts), which took most of the effect of the
// place away. Even so, two runs of one comparison have disagreed by more than their intervals over rounds:
// `--pairs N` runs N pairs, and every ratio comes with a second interval that resamples whole processes
// (pairedRatio.ts), and with each process's own median.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildRevision, checkoutName, repo } from './revision.js';
import { age, median, settle } from './harness.js';
import { describeRatio, pairedRatio } from './pairedRatio.js';
import { cpuTicks, stealPercent } from './hostSteal.js';
import { IpAllocator, krtPods, krtServices, podKey, withNewIp, withNewPhase, type Pod } from './fixtures.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { FULL, QUICK, makePods, makeServices, toggled, type Shape } from './b2Shape.js';
import { defineCli, flag, idList, integer, required, text, type ArgsOf } from './cli.js';

type Workloads = typeof import('./rxkrtWorkloads.js');
type Engine = typeof import('../src/index.js');
interface Build {
  name: string;
  workloads: Workloads;
  engine: Engine;
}

type Place = 'other' | 'hand' | 'here';

/**
 * The orders in which a process sets up its graphs, in pairs that swap the two builds. The place matters as
 * much as most changes: an A/A run with `--no-age` read 0.842–1.096 process by process (B1, three pairs,
 * at d409137), where aged graphs read 0.953–1.047. Pair p runs the orders 2(p mod 3) and
 * 2(p mod 3)+1: every pair is fair between the builds, and three pairs put the hand-written controller in
 * every place twice, which its ratios need.
 */
const SET_UP_ORDERS: ReadonlyArray<readonly Place[]> = [
  ['other', 'hand', 'here'],
  ['here', 'hand', 'other'],
  ['other', 'here', 'hand'],
  ['here', 'other', 'hand'],
  ['hand', 'other', 'here'],
  ['hand', 'here', 'other'],
];

const SCENARIOS = ['b1', 'b1tx', 'b1same', 'b1sync', 'b2'];

/** Environment variable by which the parent process tells its children what this build is called. */
const HERE_NAME = 'RXKRT_AB_HERE_NAME';

const CLI = defineCli({
  tool: 'bench:ab',
  usage: `bench:ab -- <revision> [--only ${SCENARIOS.join(',')}] [--rounds N] [--pairs N] [--no-age] [--quick]`,
  options: {
    only: idList('scenario', SCENARIOS, ['b1', 'b1tx', 'b2']),
    rounds: integer({ min: 3 }),
    quick: flag(),
    /** Pairs of child processes, the two of a pair with the builds' places swapped. */
    pairs: integer({ min: 1 }, 1),
    /** Leave the graphs as set up, to see what aging them does (see `age` in harness.ts). */
    'no-age': flag(),
    /** Set in the child processes: the order in which the contenders set up their graphs (see SET_UP_ORDERS). */
    order: integer({ min: 0, max: SET_UP_ORDERS.length - 1 }),
  },
  positionals: { revision: required(text(), 'needs the revision to compare with, e.g. npm run bench:ab -- HEAD~1') },
});
type Args = ArgsOf<typeof CLI>;

interface Contender {
  name: string;
  /** Untimed work before an op (fresh input objects); its result is the op's argument. */
  prepare(round: number): unknown;
  op(arg: unknown): void;
  times: number[];
}

async function load(dist: string): Promise<{ workloads: Workloads; engine: Engine }> {
  const workloads = (await import(pathToFileURL(join(dist, 'bench', 'rxkrtWorkloads.js')).href)) as Workloads;
  const engine = (await import(pathToFileURL(join(dist, 'src', 'index.js')).href)) as Engine;
  return { workloads, engine };
}

/**
 * B1: 1000 pod IP updates, in one batch or as 1000 transactions; with `sameOutputs`, 1000 updates in one
 * batch that change no Workload (the phase flips), so every recompute finds its output unchanged. The
 * contenders are set up in `order`, where undefined stands for the hand-written controller. Until the
 * orders of SET_UP_ORDERS, the hand-written controller was set up first in one process and last in the
 * other, which left the other build in the middle of both and this one at both ends.
 */
function b1Contenders(order: ReadonlyArray<Build | undefined>, ageGraphs: boolean, separate: boolean, sameOutputs = false): Contender[] {
  const ips = new IpAllocator();
  const updated = (p: Pod): Pod => (sameOutputs ? withNewPhase(p) : withNewIp(p, ips));
  const out: Contender[] = [];
  const addHand = (): void => {
    let handPods = krtPods(1000, ips);
    const hand = StrongHandWrittenController.build(handPods, krtServices(), () => {});
    if (ageGraphs) age();
    out.push({
      name: 'hand-written',
      prepare: () => (handPods = handPods.map(updated)),
      op: (arg) => {
        for (const p of arg as Pod[]) hand.podEvent(podKey(p), p);
        hand.drain();
      },
      times: [],
    });
  };
  for (const b of order) {
    if (b === undefined) {
      addHand();
      continue;
    }
    let pods = krtPods(1000, ips);
    const g = b.workloads.buildRxkrtWorkloads(pods, krtServices());
    const write = (next: readonly Pod[]): void => {
      for (const p of next) g.pods.updateObject(p);
    };
    if (ageGraphs) age();
    out.push({
      name: b.name,
      prepare: () => (pods = pods.map(updated)),
      op: separate ? (arg) => write(arg as Pod[]) : (arg) => b.engine.batch(() => write(arg as Pod[])),
      times: [],
    });
  }
  return out;
}

/** What a B1 initial sync keeps alive: each contender's resident graph (see `b1SyncContenders`). */
const residents: unknown[] = [];

/**
 * B1's initial sync: each op builds a contender's graph from 1000 fresh pods (its last graph is stopped, and
 * the pods made, untimed, before it). Each contender keeps a graph of 10 pods alive meanwhile, as
 * `syncVariant` in b1Controllers.ts does: a process running a controller keeps V8's optimized code for it.
 */
function b1SyncContenders(order: ReadonlyArray<Build | undefined>, ageGraphs: boolean): Contender[] {
  const out: Contender[] = [];
  const check = (name: string, events: number): void => {
    if (events !== 1000) throw new Error(`bench:ab b1sync: ${name} built ${events} Workloads of 1000 pods`);
  };
  for (const b of order) {
    if (b === undefined) {
      residents.push(StrongHandWrittenController.build(krtPods(10, new IpAllocator()), krtServices(), () => {}));
      out.push({
        name: 'hand-written',
        prepare: () => krtPods(1000, new IpAllocator()),
        op: (arg) => {
          let n = 0;
          StrongHandWrittenController.build(arg as Pod[], krtServices(), () => n++);
          check('hand-written', n);
        },
        times: [],
      });
    } else {
      residents.push(b.workloads.buildRxkrtWorkloads(krtPods(10, new IpAllocator()), krtServices()));
      let built: { events: number; stop(): void } | undefined;
      out.push({
        name: b.name,
        prepare: () => {
          if (built !== undefined) check(b.name, built.events);
          built?.stop();
          built = undefined;
          return krtPods(1000, new IpAllocator());
        },
        op: (arg) => {
          built = b.workloads.buildRxkrtWorkloads(arg as Pod[], krtServices());
        },
        times: [],
      });
    }
    if (ageGraphs) age();
  }
  return out;
}

/** B2: a burst of pod updates in one batch, then (a separate op) the selector change fanning out to 1000 pods. */
function b2Contenders(builds: readonly Build[], ageGraphs: boolean, shape: Shape): Contender[] {
  const out: Contender[] = [];
  const ips = new IpAllocator();
  for (const b of builds) {
    const pods = makePods(shape, new IpAllocator());
    const g = b.workloads.buildRxkrtWorkloads(pods, makeServices(shape));
    if (ageGraphs) age();
    out.push({
      name: `${b.name} burst`,
      prepare: (r) => {
        const from = (r * shape.burst) % shape.pods;
        const next: Pod[] = [];
        for (let i = from; i < from + shape.burst; i++) next.push((pods[i] = withNewIp(pods[i]!, ips)));
        return next;
      },
      op: (arg) =>
        b.engine.batch(() => {
          for (const p of arg as Pod[]) g.pods.updateObject(p);
        }),
      times: [],
    });
    out.push({
      name: `${b.name} fan-out`,
      prepare: (r) => r,
      op: (r) => g.services.updateObject(toggled(shape, (r as number) % 2 === 0)),
      times: [],
    });
  }
  return out;
}

async function run(contenders: Contender[], rounds: number): Promise<void> {
  const warm = Math.max(2, Math.ceil(rounds / 10));
  for (let r = 0; r < warm + rounds; r++) {
    for (const c of shuffled(contenders)) {
      const arg = c.prepare(r);
      await settle();
      const t0 = process.hrtime.bigint();
      c.op(arg);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r >= warm) c.times.push(ms);
    }
  }
}

function shuffled<T>(xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** What a child process reports: each contender's op times, by scenario. */
interface ChildReport {
  scenario: string;
  rounds: number;
  times: Record<string, number[]>;
  /** Share of the machine's CPU time other guests took while the scenario ran (Linux), in %. */
  steal?: number;
}

/** Runs the scenarios with the graphs set up in one of SET_UP_ORDERS; prints one JSON report per scenario. */
async function child(
  args: Args,
  order: readonly Place[],
  other: { sha: string; dist: string },
  names: { other: string; here: string },
): Promise<void> {
  // Loaded in the order they are set up, so that neither build's code always comes first. (Nothing this
  // script imports statically loads rxkrt: B2's data comes from b2Shape.ts, not from the scenario.)
  const builds = new Map<Place, Build>();
  for (const place of order) {
    if (place === 'other') builds.set(place, { name: names.other, ...(await load(other.dist)) });
    if (place === 'here') builds.set(place, { name: names.here, ...(await load(join(repo, 'build'))) });
  }
  const inOrder = order.map((place) => builds.get(place));
  for (const scenario of args.only) {
    const isB2 = scenario === 'b2';
    const rounds = args.rounds ?? (isB2 ? (args.quick ? 40 : 16) : scenario === 'b1sync' ? 150 : 300);
    const contenders = isB2
      ? b2Contenders([...builds.values()], !args['no-age'], shapeOf(args))
      : scenario === 'b1sync'
        ? b1SyncContenders(inOrder, !args['no-age'])
        : b1Contenders(inOrder, !args['no-age'], scenario === 'b1tx', scenario === 'b1same');
    const ticks = cpuTicks();
    await run(contenders, rounds);
    const report: ChildReport = {
      scenario,
      rounds,
      times: Object.fromEntries(contenders.map((c) => [c.name, c.times])),
      steal: stealPercent(ticks, cpuTicks()),
    };
    console.log(JSON.stringify(report));
  }
}

function shapeOf(args: Args): Shape {
  return args.quick ? QUICK : FULL;
}

async function main(): Promise<void> {
  const args = CLI.parseOrExit();
  const other = buildRevision(args.revision);
  // The children are told the name rather than work it out again: a file edited while the first child runs
  // would otherwise name the build differently in the second, and the pooled rounds would not find each other.
  // Against its own commit (an A/A run), this build needs a name of its own: the rounds are filed by name.
  const hereName = checkoutName();
  const names = { other: other.sha, here: process.env[HERE_NAME] ?? (hereName === other.sha ? `${hereName}(here)` : hereName) };
  if (args.order !== undefined) return child(args, SET_UP_ORDERS[args.order]!, other, names);
  const processes = 2 * args.pairs;
  console.log(
    `bench:ab: ${names.here} against ${names.other}, node ${process.version}; each op after a gc and a pause, rounds in random order, in ${processes} processes, each build set up first in half of them${args['no-age'] ? ', graphs not aged' : ''}`,
  );
  const reports: ChildReport[][] = [];
  const orders: string[] = [];
  const label = (place: Place): string => (place === 'hand' ? 'hand-written' : names[place]);
  for (let p = 0; p < args.pairs; p++) {
    for (const order of [2 * (p % 3), 2 * (p % 3) + 1]) {
      const setUp = SET_UP_ORDERS[order]!.map(label).join(', ');
      process.stderr.write(`  · measuring, set up in the order ${setUp}\n`);
      const childArgs = [...process.argv.slice(2), '--order', String(order)];
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...childArgs], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 << 20,
        env: { ...process.env, [HERE_NAME]: names.here },
      });
      reports.push(
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as ChildReport),
      );
      orders.push(setUp);
    }
  }
  const shape = shapeOf(args);
  for (let s = 0; s < args.only.length; s++) {
    const scenario = args.only[s]!;
    const each = reports.map((r) => r[s]!);
    const pooled = (name: string): number[] => each.flatMap((r) => r.times[name] ?? []);
    const perProcess = (name: string): number[][] => each.map((r) => r.times[name]!);
    const isB2 = scenario === 'b2';
    const title = isB2
      ? `B2 (${shape.pods} pods): burst of ${shape.burst} updates, fan-out to ${shape.fanout}`
      : scenario === 'b1sync'
        ? 'B1: initial sync of 1000 pods (a graph built per op)'
        : `B1: 1000 pod updates ${scenario === 'b1tx' ? 'as 1000 transactions' : scenario === 'b1same' ? 'in one batch, changing no Workload' : 'in one batch'}`;
    const steal = each.map((r) => (r.steal === undefined ? '?' : `${r.steal.toFixed(1)}`)).join(', ');
    console.log(`\n${title}, ${each[0]!.rounds} rounds in each process (CPU time stolen by other guests, %: ${steal})`);
    console.log(`  set up, process by process: ${orders.map((o) => `(${o})`).join(', ')}${isB2 ? ' (B2: the builds alone)' : ''}`);
    const hand = pooled('hand-written');
    for (const name of Object.keys(each[0]!.times)) {
      const t = pooled(name);
      const vsHand = hand.length > 0 && name !== 'hand-written' ? `  ${(median(t) / median(hand)).toFixed(3)}× hand-written` : '';
      console.log(`  ${name.padEnd(24)} median ${median(t).toFixed(3)} ms${vsHand}`);
    }
    for (const suffix of isB2 ? [' burst', ' fan-out'] : ['']) {
      const r = pairedRatio(perProcess(`${names.here}${suffix}`), perProcess(`${names.other}${suffix}`));
      console.log(`  ${names.here}${suffix} / ${names.other}${suffix}, paired: ${describeRatio(r)}`);
    }
    if (hand.length > 0) {
      for (const name of [names.other, names.here]) {
        console.log(`  ${name} / hand-written, paired: ${describeRatio(pairedRatio(perProcess(name), perProcess('hand-written')))}`);
      }
    }
  }
}

await main();
