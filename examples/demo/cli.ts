// The demo's command line: flags, usage, summary printing, exit codes (2 for bad flags).
import { parseArgs } from 'node:util';
import { runDemo, type DemoOptions } from './demo.js';
import { terminalOutput } from './terminal.js';
import type { DemoOutput } from './demo.js';

export const USAGE = `usage: npm start -- [options]

Runs the workload registry (Namespaces, Pods, Services and AccessPolicies → Workloads, ServiceEndpoints,
policy status) through the real informer path. Without --kubeconfig it starts the embedded API server,
seeds a cluster and drives churn; with it, it watches that cluster read-only unless --write-status.

options:
  --duration SECONDS   how long to run (default 15; 0: until Ctrl-C)
  --debug-port N       serve /metrics, /readyz, /debug/krtz and /debug/graph on port N (default: a free port)
  --kubeconfig PATH    run against the cluster in this kubeconfig instead of the embedded server
  --write-status       with --kubeconfig: patch AccessPolicy status (needs the CRD and RBAC)
  --pods N             pods to seed (default 400)       --namespaces N   (default 8)
  --services N         services to seed (default 40)    --policies N     (default 24)
  --rate N             churn writes per second (default 200)
  --seed N             random seed (default 1)
  --replicas N         replicas of the controller against the embedded server, sharded over Leases when N > 1 (default 1)
  --kill-one-at S      kill (as a crash would) the replica holding the most keys S seconds into the run
  --json               print the summary as JSON
  -h, --help           show this help`;

function nonNegative(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${name} needs a whole number from 0, got ${JSON.stringify(v)}`);
  return n;
}

function positiveInt(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number, got ${JSON.stringify(v)}`);
  return n;
}

function parse(argv: string[]): { opts: DemoOptions; json: boolean } | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      'debug-port': { type: 'string' },
      kubeconfig: { type: 'string' },
      'write-status': { type: 'boolean' },
      pods: { type: 'string' },
      namespaces: { type: 'string' },
      services: { type: 'string' },
      policies: { type: 'string' },
      rate: { type: 'string' },
      seed: { type: 'string' },
      replicas: { type: 'string' },
      'kill-one-at': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) return 'help';
  if (values['write-status'] === true && values.kubeconfig === undefined) throw new Error('--write-status only applies with --kubeconfig');
  const replicas = Math.floor(positiveInt('replicas', values.replicas, 1));
  if (replicas > 1 && values.kubeconfig !== undefined)
    throw new Error('--replicas runs against the embedded server only (see docs/ha.md for a real cluster)');
  if (replicas > 64) throw new Error(`--replicas needs at most 64, got ${replicas}`);
  const killOneAt = values['kill-one-at'] === undefined ? undefined : positiveInt('kill-one-at', values['kill-one-at'], 0);
  if (killOneAt !== undefined && replicas < 2) throw new Error('--kill-one-at needs --replicas 2 or more');
  return {
    json: values.json === true,
    opts: {
      duration: values.duration === '0' ? 0 : positiveInt('duration', values.duration, 15),
      debugPort: nonNegative('debug-port', values['debug-port'], 0),
      ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
      writeStatus: values['write-status'] === true,
      shape: {
        pods: Math.floor(positiveInt('pods', values.pods, 400)),
        namespaces: Math.floor(positiveInt('namespaces', values.namespaces, 8)),
        services: Math.floor(positiveInt('services', values.services, 40)),
        policies: Math.floor(positiveInt('policies', values.policies, 24)),
      },
      seed: Math.floor(positiveInt('seed', values.seed, 1)),
      rate: positiveInt('rate', values.rate, 200),
      replicas,
      ...(killOneAt !== undefined ? { killOneAt } : {}),
    },
  };
}

/** Runs the demo with these arguments; resolves to the process exit code. */
export async function runCli(
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; output?: DemoOutput; interrupt?: AbortSignal } = {
    stdout: process.stdout,
    stderr: process.stderr,
  },
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    io.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const out = io.output ?? terminalOutput();
  const s = await runDemo({ ...parsed.opts, ...(io.interrupt !== undefined ? { interrupt: io.interrupt } : {}) }, out);
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify(s)}\n`);
  } else {
    const ms = (v: number): string => (Number.isNaN(v) ? 'n/a' : `${v.toFixed(1)} ms`);
    out.log('');
    out.log(`summary (${s.durationSeconds} s against ${s.target}${s.interrupted ? ', interrupted' : ''})`);
    out.log(`  churn writes          ${s.churnOps}`);
    out.log(`  events processed      ${s.eventsProcessed}`);
    out.log(`  recomputations        ${s.recomputations}`);
    out.log(`  status writes         ${s.statusWrites} (skipped as already current: ${s.statusSkipped})`);
    out.log(`  event-to-output       p50 ${ms(s.p50Ms)}, p99 ${ms(s.p99Ms)} over ${s.latencySamples} samples`);
    out.log(`  outputs               ${s.workloads} workloads, ${s.services} service endpoints, ${s.policies} policy statuses`);
    out.log(`  errors reported       ${s.errors}`);
    if (s.replicas > 1) {
      out.log(`  replicas              ${s.replicas}, sharded`);
      for (const [name, writes] of Object.entries(s.writesByReplica)) {
        out.log(`    ${name.padEnd(20)}${String(writes).padStart(6)} status writes, ${s.sharesByReplica[name] ?? 0} keys at the end`);
      }
      out.log(`  failover              ${s.failoverMs === null ? 'n/a' : `${s.failoverMs} ms`}`);
      out.log(`  double writes         ${s.doubleWrites}`);
    }
    out.log(`  from-scratch check    ${s.consistent ? 'identical' : `MISMATCH: ${s.mismatch}`}`);
  }
  return s.consistent && s.doubleWrites === 0 ? 0 : 1;
}
