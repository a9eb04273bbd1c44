// `npm run bench:alloc`: the bytes one pod update allocates, and which functions allocate them.
//
// V8's sampling heap profiler (through the inspector) samples every allocation, including objects a
// scavenge has already collected, so the total is what an operation allocates, not what it keeps. Allocation
// is the lever for the harness's figures: after its forced gc the young generation starts small, and each
// scavenge copies whatever the op still holds. Frames are what V8 reports after inlining, so a function's
// row includes the callees inlined into it (the user's transform shows up inside `recompute`).
import { Session } from 'node:inspector/promises';
import type { HeapProfiler } from 'node:inspector';
import { batch } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, withNewIp, type Pod } from './fixtures.js';
import { buildRxkrtWorkloads, type RxkrtWorkloads } from './rxkrtWorkloads.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { podKey } from './fixtures.js';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const PODS = 1000;
const ROUNDS = 100;

/** Runs `op` ROUNDS times under the sampling profiler; bytes per pod update, by function. */
async function profile(op: (round: number) => void): Promise<{ total: number; byFunction: Map<string, number> }> {
  for (let r = 0; r < 3 * ROUNDS; r++) op(r);
  const session = new Session();
  session.connect();
  // The two include flags (V8 11+) are newer than @types/node's description of the method.
  const params: HeapProfiler.StartSamplingParameterType & {
    includeObjectsCollectedByMinorGC: boolean;
    includeObjectsCollectedByMajorGC: boolean;
  } = {
    samplingInterval: 256,
    includeObjectsCollectedByMinorGC: true,
    includeObjectsCollectedByMajorGC: true,
  };
  await session.post('HeapProfiler.startSampling', params);
  for (let r = 0; r < ROUNDS; r++) op(r);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  session.disconnect();
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode): void => {
    const f = n.callFrame;
    const where = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    total += n.selfSize;
    byFunction.set(where, (byFunction.get(where) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(profile.head);
  const per = ROUNDS * PODS;
  for (const [k, v] of byFunction) byFunction.set(k, v / per);
  return { total: total / per, byFunction };
}

function print(name: string, p: { total: number; byFunction: Map<string, number> }, baseline?: number): void {
  const ratio = baseline === undefined ? ' (baseline)' : `, ${(p.total / baseline).toFixed(2)}× the hand-written controller`;
  console.log(`${name}: ${p.total.toFixed(0)} bytes allocated per pod update${ratio}`);
  const rows = [...p.byFunction].filter(([, b]) => b >= 8).sort((a, b) => b[1] - a[1]);
  for (const [where, bytes] of rows) console.log(`  ${bytes.toFixed(0).padStart(5)} B  ${where}`);
}

/** A B1 graph and 50 sets of pre-built updates (every pod with a new IP), reused in turn. */
function setup(): { g: RxkrtWorkloads; updates: Pod[][] } {
  const ips = new IpAllocator();
  let pods = krtPods(PODS, ips);
  const g = buildRxkrtWorkloads(pods, krtServices());
  const updates: Pod[][] = [];
  for (let r = 0; r < 50; r++) updates.push((pods = pods.map((p) => withNewIp(p, ips))));
  return { g, updates };
}

// The same updates through the strong hand-written controller (bench/strongHandWritten.ts): the floor for the job.
const hand = setup();
hand.g.stop();
const controller = StrongHandWrittenController.build(krtPods(PODS, new IpAllocator()), krtServices(), () => {});
const handWritten = await profile((r) => {
  for (const p of hand.updates[r % 50]!) controller.podEvent(podKey(p), p);
  controller.drain();
});
print('hand-written controller, 1000 pod updates', handWritten);
const one = setup();
print(
  'rxkrt, 1000 pod updates in one batch',
  await profile((r) =>
    batch(() => {
      for (const p of one.updates[r % 50]!) one.g.pods.updateObject(p);
    }),
  ),
  handWritten.total,
);
const separate = setup();
print(
  'rxkrt, 1000 pod updates, one transaction each',
  await profile((r) => {
    for (const p of separate.updates[r % 50]!) separate.g.pods.updateObject(p);
  }),
  handWritten.total,
);
