// `npm run bench:heap`: where the bytes B2's graph keeps go, by kind of V8 object, for rxkrt and for the
// strong hand-written controller (strongHandWritten.ts), over the raw pods and services alone. The heap-ratio
// rows of `npm run bench` say how much each controller adds per pod; this says what it is made of (key
// entries, dependency records, key strings, map backing stores, the strong controller's selector index),
// measured from a heap snapshot instead of estimated from object layouts.
//
//   node --expose-gc build/bench/heapByType.js [pods]       default 20,000 pods, B2's shape (1000 per namespace)
//
// Each contender is measured in a process of its own, so that a snapshot holds nothing but the data set, the
// contender's graph and what every Node process holds; the process holding only the data set is the baseline.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { IpAllocator } from './fixtures.js';
import { buildRxkrtWorkloads } from './rxkrtWorkloads.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { makePods, makeServices, type Shape } from './b2Shape.js';
import { fullGc } from './harness.js';
import { choice, defineCli, integer } from './cli.js';

const CONTENDERS = ['raw objects', 'hand-written', 'rxkrt'] as const;
type Contender = (typeof CONTENDERS)[number];

/** Bytes by kind of object: V8's node type, and for plain objects and code their constructor or class name. */
type Census = Record<string, number>;

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Strings and numbers are counted by type alone: their "names" are their contents. */
function kindOf(type: string, name: string): string {
  if (type === 'string' || type === 'number' || type === 'hidden' || type === 'code') return type;
  if (type === 'concatenated string' || type === 'sliced string') return `${type} (a rope or a slice)`;
  return `${type} ${name.length > 50 ? `${name.slice(0, 47)}...` : name}`;
}

function census(file: string): Census {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const stride = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out: Census = {};
  const nodes = snap.nodes;
  for (let i = 0; i < nodes.length; i += stride) {
    const kind = kindOf(types[nodes[i + typeAt]!]!, snap.strings[nodes[i + nameAt]!]!);
    out[kind] = (out[kind] ?? 0) + nodes[i + sizeAt]!;
  }
  return out;
}

/** Child process: builds the data set and one contender, snapshots the heap, prints the census as JSON. */
function measureOne(contender: Contender, shape: Shape): void {
  const pods = makePods(shape, new IpAllocator());
  const services = makeServices(shape);
  let kept: unknown;
  if (contender === 'rxkrt') kept = buildRxkrtWorkloads(pods, services);
  else if (contender === 'hand-written') kept = StrongHandWrittenController.build(pods, services, () => {});
  fullGc();
  const file = writeHeapSnapshot(join(tmpdir(), `rxkrt-heap-${process.pid}.heapsnapshot`));
  try {
    // The graph and the data set must outlive the snapshot.
    void [kept, pods, services];
    console.log(JSON.stringify(census(file)));
  } finally {
    rmSync(file, { force: true });
  }
}

const CLI = defineCli({
  tool: 'bench:heap',
  usage: 'node --expose-gc build/bench/heapByType.js [pods]',
  positionals: {
    pods: integer({ min: 1000 }, 20_000),
    /** Given in the child processes: the one contender to measure. */
    contender: choice(CONTENDERS),
  },
  check: (a) => (a.pods % 1000 === 0 ? undefined : 'pods needs a multiple of 1000 (B2 has 1000 pods per namespace)'),
});

function main(): void {
  const { pods, contender } = CLI.parseOrExit();
  const shape: Shape = { pods, namespaces: pods / 1000, servicesPerNs: 50, burst: 0, fanout: 0 };
  if (contender !== undefined) return measureOne(contender, shape);
  const self = fileURLToPath(import.meta.url);
  const results = new Map<Contender, Census>();
  for (const c of CONTENDERS) {
    process.stderr.write(`  · ${c}\n`);
    const out = execFileSync(process.execPath, ['--expose-gc', self, String(pods), c], { encoding: 'utf8', maxBuffer: 16 << 20 });
    results.set(c, JSON.parse(out) as Census);
  }
  const raw = results.get('raw objects')!;
  const hand = results.get('hand-written')!;
  const rx = results.get('rxkrt')!;
  const perPod = (n: number): string => (n / pods).toFixed(1);
  const kinds = new Set([...Object.keys(hand), ...Object.keys(rx)]);
  const rows = [...kinds]
    .map((k) => ({ k, hand: (hand[k] ?? 0) - (raw[k] ?? 0), rx: (rx[k] ?? 0) - (raw[k] ?? 0) }))
    .filter((r) => Math.abs(r.hand) / pods >= 1 || Math.abs(r.rx) / pods >= 1)
    .sort((a, b) => Math.max(b.rx, b.hand) - Math.max(a.rx, a.hand));
  const total = (c: Census): number => Object.values(c).reduce((a, b) => a + b, 0);
  console.log(
    `bench:heap: B2's graph at ${pods} pods, ${shape.namespaces * 50} services; bytes per pod each controller adds to the raw objects (${perPod(total(raw))} bytes per pod, the whole process)`,
  );
  console.log(`${'kind of object'.padEnd(56)} ${'hand-written'.padStart(13)} ${'rxkrt'.padStart(9)}`);
  for (const r of rows) console.log(`${r.k.padEnd(56)} ${perPod(r.hand).padStart(13)} ${perPod(r.rx).padStart(9)}`);
  console.log(`${'total'.padEnd(56)} ${perPod(total(hand) - total(raw)).padStart(13)} ${perPod(total(rx) - total(raw)).padStart(9)}`);
}

main();
