// `npm run bench:rebuild`: what a B1 graph build costs when every graph before it was dropped and collected,
// against the same build with one small graph kept alive (a resident), as in a process running a controller.
// Each build follows two scavenges and a pause, and runs inside a closure called once per round (as the harness
// times its runs). Each mode runs in a process of its own: the first must have no rxkrt graph alive at all.
//
//   node --expose-gc build/bench/rebuild.js [none|resident|warm]   one mode; all three in turn without one
//                                                           (warm: builds back to back, no gc between them,
//                                                           beside the strong hand-written controller's)
//   node --expose-gc --trace-deopt build/bench/rebuild.js none | grep -c "weak objects"
//                                                           the deoptimizations behind the difference
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { IpAllocator, krtPods, krtServices } from './fixtures.js';
import { buildRxkrtWorkloads } from './rxkrtWorkloads.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { median, scavenge } from './harness.js';
import { choice, defineCli } from './cli.js';

const ROUNDS = 30;

async function measure(resident: boolean): Promise<number> {
  const kept = resident ? buildRxkrtWorkloads(krtPods(10, new IpAllocator()), krtServices()) : undefined;
  const times: number[] = [];
  const build = (pods: ReturnType<typeof krtPods>): void => {
    const g = buildRxkrtWorkloads(pods, krtServices());
    g.stop();
  };
  for (let r = 0; r < ROUNDS; r++) {
    const pods = krtPods(1000, new IpAllocator());
    scavenge();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const t0 = process.hrtime.bigint();
    build(pods);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  kept?.stop();
  return median(times.slice(5));
}

/** Median ms of `build` over 200 rounds back to back (after 50 warm-up rounds), with no gc in between. */
function backToBack(build: (pods: ReturnType<typeof krtPods>) => void): number {
  const times: number[] = [];
  for (let r = 0; r < 250; r++) {
    const pods = krtPods(1000, new IpAllocator());
    const t0 = process.hrtime.bigint();
    build(pods);
    if (r >= 50) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

const { mode } = defineCli({
  tool: 'bench:rebuild',
  usage: 'node --expose-gc build/bench/rebuild.js [none|resident|warm]',
  positionals: { mode: choice(['none', 'resident', 'warm']) },
}).parseOrExit();
if (mode === 'warm') {
  const rx = backToBack((pods) => buildRxkrtWorkloads(pods, krtServices()).stop());
  const hand = backToBack((pods) => void StrongHandWrittenController.build(pods, krtServices(), () => {}));
  console.log(
    `B1 graph build (1000 pods), back to back: rxkrt median ${rx.toFixed(2)} ms, hand-written ${hand.toFixed(2)} ms (${(rx / hand).toFixed(2)}x)`,
  );
} else if (mode === 'none' || mode === 'resident') {
  const ms = await measure(mode === 'resident');
  console.log(
    `B1 graph build (1000 pods), ${mode === 'resident' ? 'one resident graph alive' : 'nothing else alive'}: median ${ms.toFixed(2)} ms over ${ROUNDS - 5} rounds`,
  );
} else {
  const self = fileURLToPath(import.meta.url);
  for (const m of ['none', 'resident', 'warm'])
    process.stdout.write(execFileSync(process.execPath, ['--expose-gc', self, m], { encoding: 'utf8' }));
}
