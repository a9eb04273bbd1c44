// `npm run bench:scale`: how cost grows with size. For 1k, 10k, 100k and 1M pods (B2's shape: 1000 pods and
// 50 services a namespace), the strong hand-written controller and rxkrt, each size and contender in a
// process of its own: initial sync time, retained heap, and the cost of one pod update (one transaction,
// or one drain, each). Writes JSON (`--out`, default build/bench-scale.json); `npm run bench:chart` draws it.
//
//   npm run bench:scale -- --out docs/images/scaling.json            1k … 1M
//   npm run bench:scale -- --max 100000                              up to 100k pods
//   npm run bench:scale -- --quick                                   1k and 10k, few events: checks, not speed
//
// The contenders' outputs after the updates are compared size by size (a SHA-256 of the canonical output set).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { median, settle, settledHeap } from './harness.js';
import { IpAllocator, withNewIp, type Pod } from './fixtures.js';
import { makePods, makeServices, type Shape } from './b2Shape.js';
import { canonicalSet } from './canonical.js';
import { rxkrt, strongHand, type Contender, type Live } from './workloadContenders.js';
import { choice, defineCli, flag, integer, text } from './cli.js';

process.env['NODE_ENV'] ??= 'production';

const SIZES = [1_000, 10_000, 100_000, 1_000_000];
const CONTENDERS: Record<string, Contender> = { 'hand-written': strongHand, rxkrt };

/** One point of the curves. */
export interface ScalePoint {
  contender: string;
  pods: number;
  /** Median over the builds of this size (5 up to 10k pods, 3 at 100k, 1 above). */
  sync_ms: number;
  sync_us_per_pod: number;
  raw_mb: number;
  /** Heap after the sync minus the raw objects', after full gcs. */
  retained_overhead_mb: number;
  overhead_bytes_per_pod: number;
  /** Median over blocks of single-pod updates, each block after a gc and a pause. */
  per_event_us: number;
  events: number;
  outputs_sha256: string;
}

export interface ScaleReport {
  machine: string;
  node: string;
  date: string;
  points: ScalePoint[];
}

function shapeOf(pods: number): Shape {
  return { pods, namespaces: Math.max(1, pods / 1000), servicesPerNs: 50, burst: 0, fanout: 0 };
}

interface State {
  live: Live | undefined;
  current: Pod[];
}

/** Stops and forgets the last build; a function of its own, so that no frame still holds it while the heap is measured. */
function drop(st: State): void {
  st.live?.stop();
  st.live = undefined;
  st.current = [];
}

async function measure(name: string, pods: number, quick: boolean): Promise<ScalePoint> {
  const c = CONTENDERS[name]!;
  const s = shapeOf(pods);
  const builds = pods <= 10_000 ? 5 : pods <= 100_000 ? 3 : 1;
  const syncs: number[] = [];
  const st: State = { live: undefined, current: [] };
  let ips = new IpAllocator();
  for (let b = 0; b < builds; b++) {
    drop(st);
    ips = new IpAllocator();
    st.current = makePods(s, ips);
    const services = makeServices(s);
    await settle();
    const t0 = process.hrtime.bigint();
    st.live = c.build(st.current, services);
    syncs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (st.live.events() !== pods) throw new Error(`${name} @${pods}: ${st.live.events()} initial events`);
  }
  const live = st.live!;
  const current = st.current;
  // Single-pod updates spread over the pods, in blocks; the same sequence for every contender.
  const blocks = quick ? 3 : 20;
  const perBlock = 100;
  const times: number[] = [];
  let k = 0;
  for (let b = 0; b < blocks; b++) {
    const next: Pod[] = [];
    for (let i = 0; i < perBlock; i++) {
      const at = (k++ * 7919) % pods;
      next.push((current[at] = withNewIp(current[at]!, ips)));
    }
    const before = live.events();
    await settle();
    const t0 = process.hrtime.bigint();
    live.updateEach(next);
    times.push(Number(process.hrtime.bigint() - t0) / 1e3 / perBlock);
    if (live.events() - before !== perBlock) throw new Error(`${name} @${pods}: ${live.events() - before} events for ${perBlock} updates`);
  }
  const sha = createHash('sha256').update(canonicalSet(live.outputs())).digest('hex');
  // The heap last, around one more build: reading it takes forced full gcs, which no timed work may follow
  // (see `scavenge` in harness.ts). The timed build stays reachable from `live` until this function returns,
  // stopped and unchanged through the three reads, so the differences are the new build's alone.
  drop(st);
  const h0 = settledHeap();
  st.current = makePods(s, new IpAllocator());
  const heapServices = makeServices(s);
  const raw = settledHeap() - h0;
  st.live = c.build(st.current, heapServices);
  const total = settledHeap() - h0;
  const sync = median(syncs);
  return {
    contender: name,
    pods,
    sync_ms: round(sync),
    sync_us_per_pod: round((sync * 1000) / pods),
    raw_mb: round(raw / 2 ** 20),
    retained_overhead_mb: round((total - raw) / 2 ** 20),
    overhead_bytes_per_pod: Math.round((total - raw) / pods),
    per_event_us: round(median(times)),
    events: blocks * perBlock,
    outputs_sha256: sha,
  };
}

function round(x: number): number {
  return Number(x.toPrecision(4));
}

const CLI = defineCli({
  tool: 'bench:scale',
  usage: 'bench:scale -- [--out FILE] [--max PODS] [--quick]',
  options: {
    out: text('build/bench-scale.json'),
    max: integer({ min: 1 }),
    quick: flag(),
    /** Set in the child processes: the contender to measure, and at how many pods. */
    child: choice(Object.keys(CONTENDERS)),
    pods: integer({ min: 1 }),
  },
  check: (a) => (a.child !== undefined && a.pods === undefined ? '--child needs --pods' : undefined),
});

async function main(): Promise<void> {
  const { out, max, quick, child, pods: childPods } = CLI.parseOrExit();
  if (child !== undefined) {
    console.log(JSON.stringify(await measure(child, childPods!, quick)));
    return;
  }
  const largest = max ?? (quick ? 10_000 : 1_000_000);
  const points: ScalePoint[] = [];
  for (const pods of SIZES.filter((n) => n <= largest)) {
    for (const name of Object.keys(CONTENDERS)) {
      process.stderr.write(`  · ${name} at ${pods} pods\n`);
      const args = ['--expose-gc', '--max-old-space-size=16384', fileURLToPath(import.meta.url), '--child', name, '--pods', String(pods)];
      const line = execFileSync(process.execPath, quick ? [...args, '--quick'] : args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const p = JSON.parse(line.trim()) as ScalePoint;
      process.stderr.write(
        `    sync ${p.sync_ms} ms (${p.sync_us_per_pod} µs/pod), overhead ${p.overhead_bytes_per_pod} B/pod, ${p.per_event_us} µs/event\n`,
      );
      points.push(p);
    }
    const [a, b] = points.filter((p) => p.pods === pods);
    if (a!.outputs_sha256 !== b!.outputs_sha256) throw new Error(`outputs differ at ${pods} pods: ${a!.contender} and ${b!.contender}`);
  }
  const report: ScaleReport = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    date: new Date().toISOString(),
    points,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`wrote ${out} (outputs equal at every size)\n`);
}

await main();
