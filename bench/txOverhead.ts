// `npm run bench:tx`: what a transaction of its own costs, layer by layer, and whether more code per
// transaction costs more than the same code run in a batch.
//
// Part 1 builds B1's graph a layer at a time (the source alone; a derived collection with a trivial
// transform; its handler; B1's transform with the fetch of services; both) and runs 1000 pod updates per
// op, as one batch and as 1000 transactions, alternating in every round. Per layer it prints both medians
// and their difference per update: the cost of a transaction beyond its update's share of a batch.
//
// Part 2 asks whether that cost is the size of what a transaction runs. Item 66 measured, under callgrind's
// simulated 32 KB instruction cache, that B1 as transactions runs 42 KB of hot code and misses the cache in
// almost every line. If the real CPU had such a cliff, work added to every transaction would cost more as
// transactions than in a batch. Each probe adds work to B1's transform, in a second graph run alternately
// with B1's own, and prints what it adds per update in each mode:
//   code N      N statements of straight-line arithmetic (about 15 bytes of machine code each: see history item 79)
//   branches N  N conditional branches that always go the same way (on values the compiler cannot fold)
//   data N      N distinct 64-byte lines read, the same ones in every run
//
// Each layer and each probe size runs in a process of its own, so that no graph makes another's calls
// polymorphic.
//
//   npm run bench:tx                   both parts
//   node build/bench/txOverhead.js layer 2      one layer (0-4), in this process
//   node build/bench/txOverhead.js probe code 500    one probe, in this process
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { batch, newCollection, newNamespaceIndex, newStaticCollection, type StaticCollection } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, withNewIp, type Pod } from './fixtures.js';
import { median } from './harness.js';
import { workloadOf } from './rxkrtWorkloads.js';
import { choice, defineCli, integer, text } from './cli.js';

const ROUNDS = 1200;
const WARM = 200;
const PODS = 1000;

const LAYERS = [
  'the source alone',
  '+ a derived collection (trivial transform)',
  '+ a handler on it',
  "B1's transform (fetch), no handler",
  "B1's transform and handler (B1)",
] as const;

interface Graph {
  readonly pods: StaticCollection<Pod>;
  next(): Pod[];
}

/** B1's graph up to `layer`; `extra` runs inside every transform run (the probe's added code). */
function build(layer: number, extra?: (n: number) => number): Graph {
  const ips = new IpAllocator();
  let current = krtPods(PODS, ips);
  const pods = newStaticCollection<Pod>(current, { name: 'Pods' });
  const services = newStaticCollection(krtServices(), { name: 'Services' });
  const byNamespace = newNamespaceIndex(services);
  let sink = 0;
  if (layer === 1 || layer === 2) {
    const w = newCollection(
      pods,
      (_ctx, p) => ({
        metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        ip: p.status.podIP,
        serviceNames: [] as string[],
      }),
      { name: 'W' },
    );
    if (layer === 2) w.register(() => void sink++);
  } else if (layer >= 3) {
    const workload = workloadOf(byNamespace);
    const transform: typeof workload =
      extra === undefined
        ? workload
        : (ctx, p) => {
            sink ^= extra(p.status.podIP?.length ?? 0);
            return workload(ctx, p);
          };
    const w = newCollection(pods, transform, { name: 'W' });
    if (layer === 4) w.register(() => void sink++);
  }
  return { pods, next: () => (current = current.map((p) => withNewIp(p, ips))) };
}

function inBatch(g: Graph, next: readonly Pod[]): void {
  batch(() => {
    for (const p of next) g.pods.updateObject(p);
  });
}

function asTransactions(g: Graph, next: readonly Pod[]): void {
  for (const p of next) g.pods.updateObject(p);
}

/** µs per update of one op (the updated pods are built before the clock starts). */
function timeOp(g: Graph, op: (g: Graph, next: readonly Pod[]) => void): number {
  const next = g.next();
  const t0 = process.hrtime.bigint();
  op(g, next);
  return Number(process.hrtime.bigint() - t0) / 1e3 / PODS;
}

function layer(n: number): void {
  const g = build(n);
  const tx: number[] = [];
  const one: number[] = [];
  for (let r = 0; r < ROUNDS + WARM; r++) {
    // Alternating which mode goes first, so that neither always runs after the other.
    const first = r % 2 === 0;
    const a = timeOp(g, first ? asTransactions : inBatch);
    const b = timeOp(g, first ? inBatch : asTransactions);
    if (r < WARM) continue;
    tx.push(first ? a : b);
    one.push(first ? b : a);
  }
  const t = median(tx);
  const b = median(one);
  console.log(
    `  ${LAYERS[n]!.padEnd(44)} one batch ${b.toFixed(3)}  transactions ${t.toFixed(3)}  difference ${(t - b).toFixed(3)} µs per update (${(t / b).toFixed(2)}x)`,
  );
}

const PROBES = ['code', 'branches', 'data'] as const;
type Probe = (typeof PROBES)[number];

/** The work a probe adds to every transform run: `size` statements, branches or data lines. */
function probeWork(kind: Probe, size: number): (n: number) => number {
  if (kind === 'data') {
    // A 64-byte line is 8 doubles: reading every 8th touches `size` distinct lines.
    const lines = new Float64Array(Math.max(8, size * 8));
    return () => {
      let sum = 0;
      for (let i = 0; i < size; i++) sum += lines[i * 8]!;
      return sum;
    };
  }
  let body = 'let x = n | 0;\n';
  if (kind === 'code') {
    for (let i = 0; i < size; i++) body += `x = (x * ${31 + (i % 7)} + ${(i * 2654435761) % 1000003}) ^ (x >>> ${1 + (i % 13)});\n`;
    return new Function('n', `${body}return x;`) as (n: number) => number;
  }
  // Read from an array, so that the compiler cannot decide the branches; all zeros, so each always goes one way.
  for (let i = 0; i < size; i++) body += `if (c[${i % 16}] > ${((i * 7919) % 9) - 4}) x += ${i}; else x ^= ${i + 1};\n`;
  const f = new Function('c', 'n', `${body}return x;`) as (c: Int32Array, n: number) => number;
  const cells = new Int32Array(16);
  return (n) => f(cells, n);
}

function probe(kind: Probe, size: number): void {
  const plain = build(4);
  const heavier = build(4, probeWork(kind, size));
  const extraTx: number[] = [];
  const extraBatch: number[] = [];
  for (let r = 0; r < ROUNDS + WARM; r++) {
    for (const [op, out] of [
      [asTransactions, extraTx],
      [inBatch, extraBatch],
    ] as const) {
      // Alternating which graph goes first.
      const heavierFirst = r % 2 === 0;
      const x = timeOp(heavierFirst ? heavier : plain, op);
      const y = timeOp(heavierFirst ? plain : heavier, op);
      if (r >= WARM) out.push(heavierFirst ? x - y : y - x);
    }
  }
  const what = kind === 'code' ? 'statements of straight-line code' : kind === 'branches' ? 'predictable branches' : 'data lines read';
  console.log(
    `  ${String(size).padStart(4)} ${what.padEnd(32)} ${median(extraTx).toFixed(3)} µs more per update as transactions, ${median(extraBatch).toFixed(3)} µs in one batch`,
  );
}

const { mode, what, size } = defineCli({
  tool: 'bench:tx',
  usage: `node build/bench/txOverhead.js [layer 0-${LAYERS.length - 1} | probe ${PROBES.join('|')} SIZE]`,
  positionals: { mode: choice(['layer', 'probe']), what: text(), size: integer({ min: 0 }) },
  check: (a) => {
    if (a.mode === 'layer' && !LAYERS.some((_, i) => String(i) === a.what))
      return `layer needs a number from 0 to ${LAYERS.length - 1}, got ${JSON.stringify(a.what)}`;
    if (a.mode === 'probe' && !PROBES.some((p) => p === a.what))
      return `probe needs one of ${PROBES.join(', ')}, got ${JSON.stringify(a.what)}`;
    if (a.mode === 'probe' && a.size === undefined) return 'probe needs a size';
    return undefined;
  },
}).parseOrExit();
if (mode === 'layer') layer(Number(what));
else if (mode === 'probe') probe(what as Probe, size!);
else {
  const self = fileURLToPath(import.meta.url);
  const child = (...args: string[]): void => {
    process.stdout.write(execFileSync(process.execPath, [self, ...args], { encoding: 'utf8' }));
  };
  console.log(`bench:tx: ${PODS} pod updates per op, ${ROUNDS} measured rounds after ${WARM}; node ${process.version}`);
  console.log('Part 1: one batch against 1000 transactions, B1 built a layer at a time (a process each):');
  for (let n = 0; n < LAYERS.length; n++) child('layer', String(n));
  console.log('Part 2: work added to every transform run of B1, against B1 as it is (a process per probe):');
  child('probe', 'code', '0');
  for (const [kind, sizes] of [
    ['code', [250, 500]],
    ['branches', [500, 1000]],
    ['data', [256, 512]],
  ] as const) {
    for (const n of sizes) child('probe', kind, String(n));
  }
}
