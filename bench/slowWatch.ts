// `npm run bench:slowwatch`: what watchers that stop reading cost the embedded API server's memory.
//
// Two raw sockets open a watch on one namespace and never read; 1 000 ConfigMaps of 100 KB are then created
// through client-node. Three runs, each on a fresh server: no watchers (what the store alone costs), watchers with
// the default budget (8 MiB each: they are cut once that far behind), and watchers with an unlimited budget (the
// behaviour before the budget), each in a child process of its own so no run inherits another's heap. Heap and
// external memory are read after a full gc, with the stalled sockets still open, then the server's own counters.
//
//   node --expose-gc build/bench/slowWatch.js [--creates N] [--kb N]
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { startApiServer } from '../src/apiserver/index.js';
import { fullGc } from './harness.js';
import { defineCli, integer } from './cli.js';

const MB = 1024 * 1024;

interface RunResult {
  run: string;
  heapBeforeMb: number;
  heapAfterMb: number;
  externalAfterMb: number;
  bufferedMb: number;
  peakStreamMb: number;
  cut: number;
}

function stalledWatch(url: string, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

async function run(name: string, watchers: number, watchBufferBytes?: number): Promise<RunResult> {
  fullGc();
  const heapBefore = process.memoryUsage().heapUsed;
  const server = await startApiServer({ watchBufferBytes });
  const core = server.kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'bench' } } });
  const sockets: Socket[] = [];
  for (let i = 0; i < watchers; i++) sockets.push(await stalledWatch(server.url, '/api/v1/namespaces/bench/configmaps?watch=true'));
  while (server.openWatches() < watchers) await new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < CREATES; i++) {
    await core.createNamespacedConfigMap({ namespace: 'bench', body: { metadata: { name: `cm-${i}` }, data: { v: VALUE } } });
  }
  fullGc();
  const mem = process.memoryUsage();
  const stats = server.watchStats();
  for (const s of sockets) s.destroy();
  await server.close();
  return {
    run: name,
    heapBeforeMb: heapBefore / MB,
    heapAfterMb: mem.heapUsed / MB,
    externalAfterMb: mem.external / MB,
    bufferedMb: stats.bufferedBytes / MB,
    peakStreamMb: stats.peakStreamBufferedBytes / MB,
    cut: stats.endedTooSlow,
  };
}

const RUNS: ReadonlyArray<() => Promise<RunResult>> = [
  () => run('no watchers', 0),
  () => run('2 stalled, budget 8 MiB (default)', 2),
  () => run('2 stalled, unbounded', 2, Number.POSITIVE_INFINITY),
];

// Read once RUNS is declared, for the bound of `--run`; CREATES and VALUE are first read when a run starts.
const ARGS = defineCli({
  tool: 'bench:slowwatch',
  usage: 'node --expose-gc build/bench/slowWatch.js [--creates N] [--kb N]',
  options: {
    creates: integer({ min: 1 }, 1000),
    kb: integer({ min: 1 }, 100),
    /** Given in the child processes: the one run (an index into RUNS) to measure. */
    run: integer({ min: 0, max: RUNS.length - 1 }),
  },
}).parseOrExit();
const CREATES = ARGS.creates;
const VALUE = 'x'.repeat(ARGS.kb * 1024);

async function main(): Promise<void> {
  if (ARGS.run !== undefined) {
    process.stdout.write(JSON.stringify(await RUNS[ARGS.run]!()));
    return;
  }
  if ((globalThis as { gc?: unknown }).gc === undefined) console.warn('run with --expose-gc for stable figures');
  console.log(`${CREATES} creates of ${VALUE.length / 1024} KB, 2 stalled watchers where present`);
  const rows = RUNS.map((_, i) => {
    const args = ['--expose-gc', process.argv[1]!, ...process.argv.slice(2), '--run', String(i)];
    return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as RunResult;
  });
  const fmt = (n: number): string => n.toFixed(1).padStart(8);
  console.log(`${'run'.padEnd(36)} heap before  heap after  external  waiting  peak/stream  cut`);
  for (const r of rows) {
    console.log(
      `${r.run.padEnd(36)} ${fmt(r.heapBeforeMb)} MB ${fmt(r.heapAfterMb)} MB ${fmt(r.externalAfterMb)} MB ${fmt(r.bufferedMb)} MB ${fmt(r.peakStreamMb)} MB ${String(r.cut).padStart(4)}`,
    );
  }
}

void main();
