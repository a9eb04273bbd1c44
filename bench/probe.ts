// `npm run bench:probe -- NAME`: the stand-alone measurements that docs/benchmarks.md and docs/reliability.md
// quote beside the pairs round. Each replicates one question in one process (no pairing, no interval), so
// read them as evidence for where a cost lies, never as a target's figure. Each contender runs in a child
// process of its own: sharing one, their objects' shapes would meet in the same code (fixtures, `equals`).
//
//   build-loop   B1's graph of 1000 pods (`--pods N`) built and stopped back to back (a macrotask every 20
//                builds): median µs per build and gc ms per build, per contender; for rxkrt also the MB 50 stopped
//                graphs leave after minor gcs
//   cold-build   the same build with fresh pods, after two scavenges and a 20 ms pause (b1sync's conditions);
//                `--no-gc` keeps the pause and drops the gcs; `--keep` stops the last build after the scavenges,
//                not before, so that its outputs survive them as a graph in use does (in a bench:pairs process the
//                other contender's graph is in use). Node flags go before the script (see the docs)
//   build-survivors what a stopped B1 build leaves behind two scavenges (so to the old generation and its
//                major gcs), per contender; Node flags (`--no-allocation-site-pretenuring`) go before the script
//   build-phases B1's graph built a step at a time, each step timed, cold as in cold-build, by rxkrt and by the lean
//                engine (each in a process of its own): the stop signal, each source, the index, Workloads, the
//                handler; `--no-stop` builds rxkrt's alone, without a stop signal
//   stop-signal  what Node charges for a fresh stop signal, cold: a controller, its signal, a listener on it
//   tx-loop      1000 pod updates, one transaction (rxkrt) or drain (the others) each, warm loop: ms per 1000
//   tx-cold      1000 one-key transactions (rxkrt) or drains per update (hand-written), each run after two
//                scavenges and a 20 ms pause as bench:pairs settles them: the hand-written controller, rxkrt with a
//                transform that fetches nothing, and rxkrt's B1 Workloads (a fetch through the namespace index)
//   tx-layers    the same loop through rxkrt's graph built up a layer at a time (the pod source alone, with a
//                handler, → a derived collection whose transform fetches nothing, → B1's Workloads): what each
//                layer of the engine costs a one-key transaction
//   build-sizes  B1's build at 1 to 2000 pods, warm, the contenders taking turns in each process: what a graph
//                costs whatever its size and what each pod adds (`--processes N`, default 3)
//   build-layers rxkrt's B1 build of 1000 pods a layer at a time beside the hand-written controller's, warm,
//                taking turns in each process (`--processes N`)
//   fetch-loop   a pod's fetch of its services outside any build (a new dependency record, then the lookup),
//                turn about with the hand-written controller's lookup, warm: µs per 1000 pods
//   b4-list      a LIST of 3000 pods through the embedded API server, gc and a pause before each of 60 runs:
//                client-node's informer, rxkrt's informer alone, rxkrt's informer → newCollection; `--minor`
//                ends each run with a minor gc inside the timed window; `--gcs N` runs N scavenges before each
//                run (default 2); `--alternate` runs client-node's and rxkrt's (→ newCollection) turn about in
//                one process on one server, as a bench:pairs process does; `--forced` makes each of them a
//                forced full gc (a bare `gc()`, what the bench harness used to call)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { startApiServer } from '../src/apiserver/index.js';
import { Countdown, IpAllocator, krtPods, krtServices } from './fixtures.js';
import { contractFloor, engineFloor, leanEngine, rxkrt, strongHand, type Contender } from './workloadContenders.js';
import { createPods, watchClientNode, watchRxkrt, watchRxkrtInformer, type Env, type RunCtx } from './b4Informer.js';
import { fullGc, heapUsed, median } from './harness.js';
import { BUILD_PHASE_CONTENDERS, buildPhases, stopSignal, type BuildPhaseContender } from './probeColdBuild.js';
import { buildCostChild, buildLayers, buildSizes } from './probeBuildCost.js';
import { fetchLoop } from './probeFetchLoop.js';
import { collect, gcDuring, pause } from './probeGc.js';
import { TX_COLD, TX_LAYERS, txCold, txLayers, txLoop } from './probeTransactions.js';
import { choice, defineCli, flag, integer, required, text } from './cli.js';

const WORKLOAD_CONTENDERS: Contender[] = [strongHand, contractFloor, engineFloor, leanEngine, rxkrt];
const B4_WATCHERS: Record<string, (c: RunCtx) => Promise<void>> = {
  'client-node makeInformer': watchClientNode,
  'rxkrt newInformer alone': watchRxkrtInformer,
  'rxkrt newInformer → newCollection': watchRxkrt,
};
async function buildLoop(c: Contender, n: number): Promise<void> {
  const pods = krtPods(n, new IpAllocator());
  const resident = c.build(krtPods(100, new IpAllocator()), krtServices());
  const builds = 2000;
  const times: number[] = [];
  const gcMs = await gcDuring(async () => {
    for (let i = 0; i < builds; i++) {
      const t0 = performance.now();
      const live = c.build(pods, krtServices());
      times.push(performance.now() - t0);
      live.stop();
      if (i % 20 === 0) await pause(1);
    }
  });
  resident.stop();
  console.log(`${c.name}: ${(median(times) * 1000).toFixed(0)} µs per build, gc ${((gcMs / builds) * 1000).toFixed(0)} µs per build`);
  if (c !== rxkrt) return;
  collect(1);
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 50; i++) {
    rxkrt.build(pods, krtServices()).stop();
    await pause(1);
    collect(1);
  }
  console.log(
    `rxkrt: 50 graphs built and stopped leave ${((process.memoryUsage().heapUsed - before) / 1e6).toFixed(1)} MB after minor gcs`,
  );
}

async function coldBuild(c: Contender, withGc: boolean, keep: boolean): Promise<void> {
  const resident = c.build(krtPods(100, new IpAllocator()), krtServices());
  const times: number[] = [];
  let built: ReturnType<Contender['build']> | undefined;
  for (let i = 0; i < 80; i++) {
    if (!keep) built?.stop();
    const pods = krtPods(1000, new IpAllocator());
    const services = krtServices();
    if (withGc) collect();
    if (keep) built?.stop();
    await pause(20);
    const t0 = performance.now();
    built = c.build(pods, services);
    if (i >= 10) times.push(performance.now() - t0);
  }
  built?.stop();
  resident.stop();
  console.log(
    `${c.name}: ${(median(times) * 1000).toFixed(0)} µs per build (${withGc ? 'after two scavenges and' : 'no gc,'} a 20 ms pause` +
      `${keep ? ', the last build kept through the scavenges' : ''})`,
  );
}

/**
 * What a stopped build leaves to the old generation: each of 40 builds is stopped and dropped, then two
 * scavenges run; the heap they leave, less the heap before the build, is what survived them (the 1000 pods,
 * still held, included: every contender keeps those alike). A full gc would collect the rest, and is what
 * it costs later.
 */
function buildSurvivors(c: Contender): void {
  const ips = new IpAllocator();
  const services = krtServices();
  fullGc();
  const start = heapUsed();
  const survived: number[] = [];
  for (let i = 0; i < 40; i++) {
    const pods = krtPods(1000, ips);
    collect();
    const before = heapUsed();
    c.build(pods, services).stop();
    collect();
    survived.push(heapUsed() - before);
  }
  console.log(
    `${c.name}: ${(median(survived) / 1024).toFixed(0)} KB survive two scavenges after a stopped build (median of 40, its 1000 pods ` +
      `included); the heap grew ${((heapUsed() - start) / 1024).toFixed(0)} KB over the 40 builds`,
  );
}

interface B4Flags {
  minor: boolean;
  gcs: number;
  forced: boolean;
}

/** LISTs of 3000 pods by each of `names` in turn, in one process on one server: median ms per contender. */
async function b4List(names: readonly string[], flags: B4Flags): Promise<void> {
  const n = 3000;
  const server = await startApiServer({ historySize: 100_000 });
  try {
    const kc = server.kubeConfig();
    const env: Env = { server, kc, core: kc.makeApiClient(CoreV1Api), filled: [] };
    await env.core.createNamespace({ body: { metadata: { name: 'probe' } } });
    await createPods(env, 'probe', n);
    const times = names.map((): number[] => []);
    for (let i = 0; i < 60; i++) {
      for (let k = 0; k < names.length; k++) {
        const c: RunCtx = { env, ns: 'probe', seen: new Countdown(), stop: undefined, held: undefined, tails: [] };
        collect(flags.gcs, flags.forced);
        await pause(100);
        const t0 = performance.now();
        await B4_WATCHERS[names[k]!]!(c);
        await c.seen.until(n);
        if (flags.minor) collect(1);
        if (i >= 10) times[k]!.push(performance.now() - t0);
        await c.stop?.();
      }
    }
    const how =
      `${flags.minor ? ', a minor gc inside the window' : ''}${flags.gcs !== 2 ? `, ${flags.gcs} scavenges before each` : ''}` +
      `${flags.forced ? ', forced full gcs instead' : ''}`;
    for (let k = 0; k < names.length; k++) {
      const alone = names.length === 1 ? '' : `, turn about with ${names.filter((_, j) => j !== k).join(', ')}`;
      console.log(`${names[k]}: ${median(times[k]!).toFixed(1)} ms per LIST of ${n} pods${how}${alone}`);
    }
  } finally {
    await server.close();
  }
}

const PROBES = [
  'build-loop',
  'cold-build',
  'build-survivors',
  'build-phases',
  'stop-signal',
  'build-sizes',
  'build-layers',
  'fetch-loop',
  'tx-loop',
  'tx-cold',
  'tx-layers',
  'b4-list',
] as const;
type Probe = (typeof PROBES)[number];

/** The options each probe takes (any other is refused rather than ignored). */
const TAKES: Record<Probe, readonly string[]> = {
  'build-loop': ['contender', 'pods'],
  'cold-build': ['contender', 'no-gc', 'keep'],
  'build-survivors': ['contender'],
  'build-phases': ['no-stop', 'contender'],
  'stop-signal': [],
  'build-sizes': ['processes', 'child'],
  'build-layers': ['processes', 'child'],
  'fetch-loop': [],
  'tx-loop': ['contender'],
  'tx-cold': ['contender'],
  'tx-layers': ['contender'],
  'b4-list': ['contender', 'minor', 'gcs', 'alternate', 'forced'],
};

const cli = defineCli({
  tool: 'bench:probe',
  usage:
    'bench:probe -- build-loop [--pods N] | cold-build [--no-gc] [--keep] | build-survivors | build-phases [--no-stop] | stop-signal | build-sizes [--processes N] | ' +
    'build-layers [--processes N] | fetch-loop | tx-loop | tx-cold | tx-layers | b4-list [--minor] [--gcs N] [--alternate] [--forced]; ' +
    'build-loop, cold-build, build-survivors, build-phases, the tx probes and b4-list run each contender in a process of its own (--contender NAME: that one, here)',
  options: {
    contender: text(),
    pods: integer({ min: 1 }),
    'no-gc': flag(),
    keep: flag(),
    'no-stop': flag(),
    processes: integer({ min: 1 }),
    child: flag(),
    minor: flag(),
    gcs: integer({ min: 1 }),
    alternate: flag(),
    forced: flag(),
  },
  positionals: { probe: required(choice(PROBES), 'missing <probe>') },
  check: (v) => {
    const given = Object.entries(v).filter(([k, x]) => k !== 'probe' && x !== undefined && x !== false);
    const stray = given.find(([k]) => !TAKES[v.probe].includes(k));
    if (stray !== undefined) return `${v.probe} takes no --${stray[0]}`;
    if (v.probe === 'build-phases' && v['no-stop'] && v.contender === 'lean engine')
      return 'the lean engine always takes a stop signal: --no-stop is for rxkrt';
    const known = contendersOf(v.probe);
    if (v.contender === undefined || known.includes(v.contender)) return undefined;
    return `${v.probe} has no contender ${JSON.stringify(v.contender)} (contenders: ${known.join('; ')})`;
  },
});

/** What `--contender` names for a probe: each runs in a process of its own unless one is named. */
function contendersOf(probe: Probe): readonly string[] {
  if (probe === 'b4-list') return Object.keys(B4_WATCHERS);
  if (probe === 'tx-layers') return TX_LAYERS;
  if (probe === 'tx-cold') return TX_COLD;
  if (probe === 'build-phases') return BUILD_PHASE_CONTENDERS;
  return WORKLOAD_CONTENDERS.map((c) => c.name);
}

async function main(): Promise<void> {
  const args = cli.parseOrExit();
  const probe = args.probe;
  if (probe === 'stop-signal') return stopSignal();
  if (probe === 'fetch-loop') return fetchLoop();
  if (probe === 'build-sizes' || probe === 'build-layers') {
    if (args.child) return buildCostChild(probe);
    return probe === 'build-sizes' ? buildSizes(args.processes ?? 3) : buildLayers(args.processes ?? 3);
  }
  const b4Flags: B4Flags = { minor: args.minor, gcs: args.gcs ?? 2, forced: args.forced };
  if (probe === 'b4-list' && args.alternate) return b4List(['client-node makeInformer', 'rxkrt newInformer → newCollection'], b4Flags);
  const name = args.contender;
  if (name === undefined) {
    // Without a stop signal only rxkrt builds (the lean engine's collections always take one).
    const names = probe === 'build-phases' && args['no-stop'] ? ['rxkrt'] : contendersOf(probe);
    for (const n of names) {
      const child = [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--contender', n];
      process.stdout.write(execFileSync(process.execPath, child, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    }
    return;
  }
  if (probe === 'b4-list') return b4List([name], b4Flags);
  if (probe === 'tx-layers') return txLayers(name);
  if (probe === 'tx-cold') return txCold(name);
  if (probe === 'build-phases') return buildPhases(!args['no-stop'], name as BuildPhaseContender);
  const c = WORKLOAD_CONTENDERS.find((x) => x.name === name)!;
  if (probe === 'build-loop') await buildLoop(c, args.pods ?? 1000);
  else if (probe === 'cold-build') await coldBuild(c, !args['no-gc'], args.keep);
  else if (probe === 'build-survivors') buildSurvivors(c);
  else txLoop(c);
}

await main();
// B4's API server and informers would keep the process alive.
process.exit(0);
