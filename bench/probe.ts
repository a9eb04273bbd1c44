// `npm run bench:probe -- NAME`: the stand-alone measurements that docs/benchmarks.md and docs/reliability.md
// quote beside the pairs round. Each replicates one question in one process (no pairing, no interval), so
// read them as evidence for where a cost lies, never as a target's figure. Each contender runs in a child
// process of its own: sharing one, their objects' shapes would meet in the same code (fixtures, `equals`).
//
//   build-loop   B1's 1000-pod graph built and stopped back to back (a macrotask every 20 builds): median µs per
//                build and gc ms per build, per contender; for rxkrt also the MB 50 stopped graphs leave after
//                minor gcs
//   cold-build   the same build with fresh pods, after two full gcs and a 20 ms pause (b1sync's conditions);
//                `--no-gc` keeps the pause and drops the gcs. Node flags go before the script (see the docs)
//   tx-loop      1000 pod updates, one transaction (rxkrt) or drain (the others) each, warm loop: ms per 1000
//   b4-list      a LIST of 3000 pods through the embedded API server, gc and a pause before each of 60 runs:
//                client-node's informer, rxkrt's informer alone, rxkrt's informer → newCollection; `--minor`
//                ends each run with a minor gc inside the timed window
import { execFileSync } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { startApiServer } from '../src/apiserver/index.js';
import { Countdown, IpAllocator, krtPods, krtServices, withNewIp, type Pod } from './fixtures.js';
import { contractFloor, rxkrt, strongHand, type Contender } from './workloadContenders.js';
import { createPods, watchClientNode, watchRxkrt, watchRxkrtInformer, type Env, type RunCtx } from './b4Informer.js';
import { median } from './harness.js';

const WORKLOAD_CONTENDERS: Contender[] = [strongHand, contractFloor, rxkrt];
const B4_WATCHERS: Record<string, (c: RunCtx) => Promise<void>> = {
  'client-node makeInformer': watchClientNode,
  'rxkrt newInformer alone': watchRxkrtInformer,
  'rxkrt newInformer → newCollection': watchRxkrt,
};
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Full gcs (`--expose-gc`), or a minor one. */
function collect(type: 'major' | 'minor' = 'major'): void {
  const g = (globalThis as { gc?: (o?: { type: string }) => void }).gc;
  if (g === undefined) throw new Error('run with node --expose-gc (npm run bench:probe does)');
  g({ type });
  if (type === 'major') g({ type });
}

/** Milliseconds of gc reported while `fn` runs (the observer's entries arrive a macrotask later). */
async function gcDuring(fn: () => Promise<void>): Promise<number> {
  let ms = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) ms += e.duration;
  });
  obs.observe({ entryTypes: ['gc'] });
  await fn();
  await pause(50);
  obs.disconnect();
  return ms;
}

async function buildLoop(c: Contender): Promise<void> {
  const pods = krtPods(1000, new IpAllocator());
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
  collect('minor');
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 50; i++) {
    rxkrt.build(pods, krtServices()).stop();
    await pause(1);
    collect('minor');
  }
  console.log(
    `rxkrt: 50 graphs built and stopped leave ${((process.memoryUsage().heapUsed - before) / 1e6).toFixed(1)} MB after minor gcs`,
  );
}

async function coldBuild(c: Contender, withGc: boolean): Promise<void> {
  const resident = c.build(krtPods(100, new IpAllocator()), krtServices());
  const times: number[] = [];
  let built: ReturnType<Contender['build']> | undefined;
  for (let i = 0; i < 80; i++) {
    built?.stop();
    const pods = krtPods(1000, new IpAllocator());
    const services = krtServices();
    if (withGc) collect();
    await pause(20);
    const t0 = performance.now();
    built = c.build(pods, services);
    if (i >= 10) times.push(performance.now() - t0);
  }
  built?.stop();
  resident.stop();
  console.log(
    `${c.name}: ${(median(times) * 1000).toFixed(0)} µs per build (${withGc ? 'after two full gcs and' : 'no gc,'} a 20 ms pause)`,
  );
}

function txLoop(c: Contender): void {
  const ips = new IpAllocator();
  let current: Pod[] = krtPods(1000, ips);
  const live = c.build(current, krtServices());
  const times: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const next = current.map((p) => withNewIp(p, ips));
    const t0 = performance.now();
    live.updateEach(next);
    if (i >= 500) times.push(performance.now() - t0);
    current = next;
  }
  live.stop();
  console.log(`${c.name}: ${median(times).toFixed(3)} ms per 1000 single-update transactions or drains`);
}

async function b4List(name: string, minor: boolean): Promise<void> {
  const n = 3000;
  const server = await startApiServer({ historySize: 100_000 });
  try {
    const kc = server.kubeConfig();
    const env: Env = { server, kc, core: kc.makeApiClient(CoreV1Api), filled: [] };
    await env.core.createNamespace({ body: { metadata: { name: 'probe' } } });
    await createPods(env, 'probe', n);
    const watch = B4_WATCHERS[name]!;
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const c: RunCtx = { env, ns: 'probe', seen: new Countdown(), stop: undefined, held: undefined, tails: [] };
      collect();
      await pause(100);
      const t0 = performance.now();
      await watch(c);
      await c.seen.until(n);
      if (minor) collect('minor');
      if (i >= 10) times.push(performance.now() - t0);
      await c.stop?.();
    }
    console.log(`${name}: ${median(times).toFixed(1)} ms per LIST of ${n} pods${minor ? ' (a minor gc inside the window)' : ''}`);
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const [probe = '', ...rest] = process.argv.slice(2);
  const at = rest.indexOf('--contender');
  const flags = at < 0 ? rest : rest.filter((_, i) => i !== at && i !== at + 1);
  const b4 = probe === 'b4-list';
  if (!['build-loop', 'cold-build', 'tx-loop', 'b4-list'].includes(probe)) {
    throw new Error(`usage: bench:probe -- build-loop | cold-build [--no-gc] | tx-loop | b4-list [--minor] (got ${JSON.stringify(probe)})`);
  }
  if (at < 0) {
    for (const name of b4 ? Object.keys(B4_WATCHERS) : WORKLOAD_CONTENDERS.map((c) => c.name)) {
      const args = [...process.execArgv, fileURLToPath(import.meta.url), probe, ...flags, '--contender', name];
      process.stdout.write(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    }
    return;
  }
  const name = rest[at + 1]!;
  if (b4) return b4List(name, flags.includes('--minor'));
  const c = WORKLOAD_CONTENDERS.find((x) => x.name === name)!;
  if (probe === 'build-loop') await buildLoop(c);
  else if (probe === 'cold-build') await coldBuild(c, !flags.includes('--no-gc'));
  else txLoop(c);
}

await main();
// B4's API server and informers would keep the process alive.
process.exit(0);
