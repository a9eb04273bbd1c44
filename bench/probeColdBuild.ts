// Two probes of B1's initial sync as bench:pairs times it (after two scavenges and a 20 ms pause): where
// rxkrt's build (or the lean engine's) spends its time, and what Node's AbortSignal costs a graph built with a
// fresh stop signal.
import { newCollection, newNamespaceIndex, newStaticCollection } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, type Pod, type Service, type Workload } from './fixtures.js';
import { median, minorGc } from './harness.js';
import { workloadOf } from './rxkrtWorkloads.js';
import { LeanDerived, LeanServiceIndex, LeanSource } from './leanEngine.js';
import { floorWorkloadOf } from './engineFloor.js';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What the harness does before each timed run. */
async function settleCold(): Promise<void> {
  minorGc();
  minorGc();
  await pause(20);
}

const PHASES = ['stop signal', 'pod source', 'service source', 'namespace index', 'Workloads', 'handler'] as const;

/** The contenders `build-phases` times: each builds B1's graph in the steps of `PHASES`. */
export const BUILD_PHASE_CONTENDERS = ['rxkrt', 'lean engine'] as const;
export type BuildPhaseContender = (typeof BUILD_PHASE_CONTENDERS)[number];

/**
 * One build of B1's graph, a clock read after each step into `t` (which holds the start); returns the
 * controller to abort once the next build is timed, and the events the handler saw.
 */
function buildInSteps(
  contender: BuildPhaseContender,
  withStop: boolean,
  pods: Pod[],
  services: Service[],
  t: number[],
): { abort: AbortController | undefined; events: () => number } {
  let events = 0;
  const count = (): void => {
    events++;
  };
  const abort = withStop ? new AbortController() : undefined;
  const stop = abort?.signal;
  t.push(performance.now());
  if (contender === 'rxkrt') {
    const podC = newStaticCollection<Pod>(pods, { name: 'Pods', stop });
    t.push(performance.now());
    const svcC = newStaticCollection<Service>(services, { name: 'Services', stop });
    t.push(performance.now());
    const byNamespace = newNamespaceIndex(svcC);
    t.push(performance.now());
    const workloads = newCollection(podC, workloadOf(byNamespace), { name: 'Workloads', stop });
    t.push(performance.now());
    workloads.register(count);
  } else {
    // The lean engine's collections always take a stop signal (`build-phases` refuses --no-stop for it).
    const podC = new LeanSource<Pod>(pods, 'Pods', stop!);
    t.push(performance.now());
    const svcC = new LeanSource<Service>(services, 'Services', stop!);
    t.push(performance.now());
    const byNamespace = new LeanServiceIndex(svcC);
    t.push(performance.now());
    const workloads = new LeanDerived<Pod, Workload>(podC, floorWorkloadOf(byNamespace), 'Workloads', stop!);
    t.push(performance.now());
    workloads.register(count);
  }
  t.push(performance.now());
  return { abort, events: () => events };
}

/**
 * B1's graph built step by step by `contender` with a clock read between steps: median µs per step over 70
 * cold builds. `withStop: false` builds rxkrt's without a stop signal (the graphs then stay tracked weakly
 * until a full gc, which changes what the scavenges find; read it for the stop signal's share only).
 */
export async function buildPhases(withStop: boolean, contender: BuildPhaseContender): Promise<void> {
  const times = PHASES.map((): number[] => []);
  let stopLast: AbortController | undefined;
  for (let i = 0; i < 80; i++) {
    const pods: Pod[] = krtPods(1000, new IpAllocator());
    const services: Service[] = krtServices();
    stopLast?.abort();
    await settleCold();
    const t = [performance.now()];
    const built = buildInSteps(contender, withStop, pods, services, t);
    if (built.events() !== 1000) throw new Error(`build-phases: ${built.events()} initial events, not 1000`);
    stopLast = built.abort;
    if (i >= 10) for (let k = 0; k < PHASES.length; k++) times[k]!.push((t[k + 1]! - t[k]!) * 1000);
  }
  stopLast?.abort();
  const medians = times.map(median);
  const total = medians.reduce((a, b) => a + b, 0);
  console.log(
    `${contender} build${withStop ? '' : ' without a stop signal'}, median µs per step: ` +
      PHASES.map((p, k) => `${p} ${medians[k]!.toFixed(0)}`).join(', ') +
      `; sum ${total.toFixed(0)}`,
  );
}

const SIGNAL_STEPS = [
  'new AbortController()',
  'its .signal (Node creates it on first read)',
  "signal.addEventListener('abort', f, { once: true })",
  'the same on two new signals, back to back (both timed)',
  "new EventTarget()'s addEventListener, for comparison",
] as const;

/** Each step of giving a graph a fresh stop signal, timed alone after the cold settle: median µs. */
export async function stopSignal(): Promise<void> {
  const times = SIGNAL_STEPS.map((): number[] => []);
  const kept: unknown[] = [];
  const listener = (): void => {};
  for (let i = 0; i < 70; i++) {
    for (let step = 0; step < SIGNAL_STEPS.length; step++) {
      const controller = step === 0 ? undefined : new AbortController();
      const signal = step >= 2 ? controller!.signal : undefined;
      const second = step === 3 ? new AbortController().signal : undefined;
      const target = step === 4 ? new EventTarget() : undefined;
      await settleCold();
      const t0 = performance.now();
      if (step === 0) kept[step] = new AbortController();
      else if (step === 1) kept[step] = controller!.signal;
      else if (step === 2) signal!.addEventListener('abort', listener, { once: true });
      else if (step === 3) {
        signal!.addEventListener('abort', listener, { once: true });
        second!.addEventListener('abort', listener, { once: true });
      } else target!.addEventListener('abort', listener, { once: true });
      const dt = (performance.now() - t0) * 1000;
      kept[step] = [controller, second, target];
      if (i >= 10) times[step]!.push(dt);
    }
  }
  console.log(
    `after two scavenges and a 20 ms pause, median µs: ${SIGNAL_STEPS.map((s, k) => `${s} ${median(times[k]!).toFixed(1)}`).join('; ')}`,
  );
}
