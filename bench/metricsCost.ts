// `npm run bench:metrics`: what collecting metrics costs B1 (1000 pod IP updates, in one batch and as 1000
// transactions). Each process builds one graph and, round by round in random order, runs the op once with
// rxkrt's metrics registered on a prom-client Registry and once without; a scrape follows every op with
// metrics on, untimed, as Prometheus would. Ratios (on / off) are paired by round and pooled over processes.
//
//   npm run bench:metrics                          4 processes × 200 rounds
//   npm run bench:metrics -- --processes 6 --rounds 300
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { batch } from '../src/index.js';
import { collectMetrics } from '../src/observe/index.js';
import { age, settle } from './harness.js';
import { describeRatio, pairedRatio } from './pairedRatio.js';
import { IpAllocator, krtPods, krtServices, withNewIp, type Pod } from './fixtures.js';
import { buildRxkrtWorkloads } from './rxkrtWorkloads.js';
import { defineCli, flag, integer } from './cli.js';

const CLI = defineCli({
  tool: 'bench:metrics',
  usage: 'bench:metrics -- [--processes N] [--rounds N]',
  options: {
    processes: integer({ min: 1 }, 4),
    rounds: integer({ min: 1 }, 200),
    /** Set in the child processes, which measure and report. */
    child: flag(),
  },
});

type Mode = 'batch' | 'transactions';
type Times = Record<Mode, { on: number[]; off: number[] }>;

async function child(rounds: number): Promise<Times> {
  const ips = new IpAllocator();
  let pods = krtPods(1000, ips);
  const g = buildRxkrtWorkloads(pods, krtServices());
  age();
  const registry = new Registry();
  const times: Times = { batch: { on: [], off: [] }, transactions: { on: [], off: [] } };
  const warm = Math.max(2, Math.ceil(rounds / 10));
  for (let r = 0; r < warm + rounds; r++) {
    for (const mode of ['batch', 'transactions'] as const) {
      const order = Math.random() < 0.5 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const metrics of order) {
        pods = pods.map((p) => withNewIp(p, ips));
        const next: readonly Pod[] = pods;
        const stop = metrics === 'on' ? collectMetrics(registry) : undefined;
        await settle();
        const t0 = process.hrtime.bigint();
        if (mode === 'batch') batch(() => next.forEach((p) => g.pods.updateObject(p)));
        else for (const p of next) g.pods.updateObject(p);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (stop !== undefined) {
          await registry.metrics();
          stop();
        }
        if (r >= warm) times[mode][metrics].push(ms);
      }
    }
  }
  g.stop();
  return times;
}

async function main(): Promise<void> {
  const args = CLI.parseOrExit();
  if (args.child) {
    process.stdout.write(JSON.stringify(await child(args.rounds)));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const reports: Times[] = [];
  for (let p = 0; p < args.processes; p++) {
    const out = execFileSync(process.execPath, ['--expose-gc', self, '--child', '--rounds', String(args.rounds)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    reports.push(JSON.parse(out) as Times);
    process.stderr.write(`process ${p + 1}/${args.processes} done\n`);
  }
  console.log(`metrics on / off, B1 (1000 pods), ${args.processes} processes × ${args.rounds} rounds; below 1.05 is within budget`);
  for (const mode of ['batch', 'transactions'] as const) {
    const r = pairedRatio(
      reports.map((t) => t[mode].on),
      reports.map((t) => t[mode].off),
    );
    console.log(`  B1 ${mode === 'batch' ? 'one batch      ' : '1000 transactions'}: ${describeRatio(r)}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
