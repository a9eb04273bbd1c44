// The scenarios of `npm run bench:pairs`, each with its contenders (the variants of the full run's scenarios)
// and the restated targets (issue 33) it judges: ratios to the strong hand-written controller, and two
// floors (MobX against rxkrt, naive recompute against rxkrt).
import type { Row, Variant } from './harness.js';
import { perEventVariant, syncVariant as b1Sync, updateVariant } from './b1Controllers.js';
import { burstVariant, fanoutVariant, syncVariant as b2Sync } from './b2Scale.js';
import { FULL, QUICK, makePods } from './b2Shape.js';
import { b3Rxkrt, b3StrongHand, b3Variant, QUICK_PODS } from './b3Policies.js';
import { PODS as B3_PODS } from './b3Data.js';
import { contractFloor, engineFloor, leanEngine, mobx, naive, rxkrt, strongHand } from './workloadContenders.js';
import { b4PairVariants } from './b4Informer.js';

/**
 * A ratio: `variant`'s time over `over`'s, round by round, judged against at most or at least a bound; with
 * neither, it is evidence (the contract floor's ratio, which bounds what any design can reach).
 */
export interface Target {
  variant: string;
  over: string;
  atMost?: number;
  atLeast?: number;
}

/** A figure judged on its per-process values (one per process; no rounds to pair). */
export interface PerProcessTarget {
  name: string;
  value(rows: readonly Row[]): number;
  atMost: number;
}

export interface PairScenario {
  id: string;
  title: string;
  variants(quick: boolean): Variant[];
  rounds(quick: boolean): { warmup: number; runs: number };
  targets: Target[];
  perProcessTargets?: PerProcessTarget[];
}

const fast = (quick: boolean): { warmup: number; runs: number } => (quick ? { warmup: 2, runs: 5 } : { warmup: 10, runs: 100 });
const slow = (quick: boolean): { warmup: number; runs: number } => (quick ? { warmup: 1, runs: 3 } : { warmup: 2, runs: 12 });

/** rxkrt's B2 overhead bytes per pod over the hand-written controller's, in one process. */
function overheadRatio(rows: readonly Row[]): number {
  const of = (name: string): number => rows.find((r) => r.variant === name)!.extra!['overhead_bytes_per_pod'] as number;
  return of('rxkrt') / of('hand-written');
}

export const PAIR_SCENARIOS: PairScenario[] = [
  {
    id: 'b1batch',
    title: 'B1 one batch (1000 pod updates)',
    variants: () => [
      updateVariant(strongHand, false, { label: ' (1 drain)', baseline: true }),
      updateVariant(rxkrt, false, { label: ' (1 batch)' }),
      updateVariant(mobx, false, { label: ' (runInAction)' }),
    ],
    rounds: fast,
    targets: [
      { variant: 'rxkrt (1 batch)', over: 'hand-written (1 drain)', atMost: 1.15 },
      { variant: 'MobX (runInAction)', over: 'rxkrt (1 batch)', atLeast: 2 },
    ],
  },
  {
    id: 'b1tx',
    title: 'B1 one transaction per update (1000 pod updates)',
    variants: () => [
      updateVariant(strongHand, true, { label: ' (drain per update)', baseline: true }),
      updateVariant(rxkrt, true, { label: ' (1000 transactions)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'rxkrt (1000 transactions)', over: 'hand-written (drain per update)', atMost: 1.4 }],
  },
  {
    id: 'b1sync',
    title: 'B1 initial sync (1000 pods)',
    variants: () => [b1Sync(strongHand, true), b1Sync(rxkrt)],
    rounds: (quick) => (quick ? { warmup: 2, runs: 5 } : { warmup: 10, runs: 60 }),
    targets: [{ variant: 'rxkrt', over: 'hand-written', atMost: 1.5 }],
  },
  // The contract floor (evidence, no target) runs in processes of its own: it calls rxkrt's `equals`, and in
  // rxkrt's processes its Workloads would make that function's inline caches polymorphic for rxkrt too.
  {
    id: 'b1floorbatch',
    title: 'B1 one batch, contract floor',
    variants: () => [
      updateVariant(strongHand, false, { label: ' (1 drain)', baseline: true }),
      updateVariant(contractFloor, false, { label: ' (1 drain)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'contract floor (1 drain)', over: 'hand-written (1 drain)' }],
  },
  {
    id: 'b1floortx',
    title: 'B1 one update at a time, contract floor',
    variants: () => [
      updateVariant(strongHand, true, { label: ' (drain per update)', baseline: true }),
      updateVariant(contractFloor, true, { label: ' (drain per update)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'contract floor (drain per update)', over: 'hand-written (drain per update)' }],
  },
  {
    id: 'b1floorsync',
    title: 'B1 initial sync, contract floor',
    variants: () => [b1Sync(strongHand, true), b1Sync(contractFloor)],
    rounds: (quick) => (quick ? { warmup: 2, runs: 5 } : { warmup: 10, runs: 60 }),
    targets: [{ variant: 'contract floor', over: 'hand-written' }],
  },
  // The engine floor (evidence, no target): the contract floor plus the least a dependency-tracking engine
  // does; in processes of its own for the same reason.
  {
    id: 'b1enginebatch',
    title: 'B1 one batch, engine floor',
    variants: () => [
      updateVariant(strongHand, false, { label: ' (1 drain)', baseline: true }),
      updateVariant(engineFloor, false, { label: ' (1 batch)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'engine floor (1 batch)', over: 'hand-written (1 drain)' }],
  },
  {
    id: 'b1enginetx',
    title: 'B1 one transaction per update, engine floor',
    variants: () => [
      updateVariant(strongHand, true, { label: ' (drain per update)', baseline: true }),
      updateVariant(engineFloor, true, { label: ' (1000 transactions)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'engine floor (1000 transactions)', over: 'hand-written (drain per update)' }],
  },
  {
    id: 'b1enginesync',
    title: 'B1 initial sync, engine floor',
    variants: () => [b1Sync(strongHand, true), b1Sync(engineFloor)],
    rounds: (quick) => (quick ? { warmup: 2, runs: 5 } : { warmup: 10, runs: 60 }),
    targets: [{ variant: 'engine floor', over: 'hand-written' }],
  },
  // The lean engine (evidence, no target): the engine floor plus what the contract obliges an engine to do on
  // B1's path; rxkrt's distance from it is what rxkrt's engine adds beyond the contract.
  {
    id: 'b1leantx',
    title: 'B1 one transaction per update, lean engine',
    variants: () => [
      updateVariant(strongHand, true, { label: ' (drain per update)', baseline: true }),
      updateVariant(leanEngine, true, { label: ' (1000 transactions)' }),
    ],
    rounds: fast,
    targets: [{ variant: 'lean engine (1000 transactions)', over: 'hand-written (drain per update)' }],
  },
  {
    id: 'b1leansync',
    title: 'B1 initial sync, lean engine',
    variants: () => [b1Sync(strongHand, true), b1Sync(leanEngine)],
    rounds: (quick) => (quick ? { warmup: 2, runs: 5 } : { warmup: 10, runs: 60 }),
    targets: [{ variant: 'lean engine', over: 'hand-written' }],
  },
  {
    id: 'b1event',
    title: 'B1 per event at 10k pods',
    variants: (quick) => [
      perEventVariant(strongHand, 10_000, quick ? 2 : 3, true),
      perEventVariant(rxkrt, 10_000, quick ? 2 : 3),
      perEventVariant(naive, 10_000, quick ? 2 : 3),
    ],
    rounds: (quick) => (quick ? { warmup: 1, runs: 2 } : { warmup: 1, runs: 8 }),
    targets: [{ variant: 'naive rebuild @10k pods', over: 'rxkrt @10k pods', atLeast: 100 }],
  },
  {
    id: 'b2burst',
    title: 'B2 burst of pod updates',
    variants: (quick) => [
      burstVariant(strongHand, ' (1 drain)', quick ? QUICK : FULL, true),
      burstVariant(rxkrt, ' (1 batch)', quick ? QUICK : FULL),
    ],
    rounds: (quick) => (quick ? { warmup: 1, runs: 3 } : { warmup: 3, runs: 20 }),
    targets: [{ variant: 'rxkrt (1 batch)', over: 'hand-written (1 drain)', atMost: 1.15 }],
  },
  {
    id: 'b2fanout',
    title: 'B2 selector change fanning out to 1000 pods',
    variants: (quick) => [fanoutVariant(strongHand, quick ? QUICK : FULL, true), fanoutVariant(rxkrt, quick ? QUICK : FULL)],
    // Each round settles a 100k-pod heap (two scavenges and a pause of up to 300 ms), so rounds are few but pooled over six processes.
    rounds: (quick) => (quick ? { warmup: 2, runs: 5 } : { warmup: 4, runs: 30 }),
    targets: [{ variant: 'rxkrt', over: 'hand-written', atMost: 1.15 }],
  },
  {
    id: 'b3',
    title: 'B3 burst (500 policies)',
    variants: (quick) => {
      const n = quick ? QUICK_PODS : B3_PODS;
      return [b3Variant(b3StrongHand, ' (1 drain)', n, n, false, true), b3Variant(b3Rxkrt, ' (1 batch)', n, n, false)];
    },
    rounds: slow,
    targets: [{ variant: 'rxkrt (1 batch)', over: 'hand-written (1 drain)', atMost: 1.15 }],
  },
  {
    id: 'b4list',
    title: 'B4 list of existing pods (3000; quick: 100)',
    variants: (quick) => b4PairVariants('list', quick ? 100 : 3000, quick ? 1 : 3),
    rounds: (quick) => (quick ? { warmup: 1, runs: 3 } : { warmup: 3, runs: 20 }),
    targets: [{ variant: 'rxkrt newInformer → newCollection', over: 'client-node makeInformer', atMost: 1.1 }],
  },
  {
    id: 'b4watch',
    title: 'B4 pods created and watched (3000; quick: 100)',
    variants: (quick) => b4PairVariants('watch', quick ? 100 : 3000, quick ? 1 : 2),
    rounds: (quick) => (quick ? { warmup: 1, runs: 3 } : { warmup: 2, runs: 10 }),
    targets: [{ variant: 'rxkrt newInformer → newCollection', over: 'client-node makeInformer', atMost: 1.1 }],
  },
  // Last in each process: its heap figure is read between forced full gcs, after its timed runs (see harness.ts).
  {
    id: 'b2sync',
    title: 'B2 initial sync',
    variants: (quick) => [b2Sync(strongHand, quick ? QUICK : FULL, makePods, true), b2Sync(rxkrt, quick ? QUICK : FULL, makePods)],
    rounds: slow,
    targets: [{ variant: 'rxkrt', over: 'hand-written', atMost: 1.3 }],
    perProcessTargets: [{ name: 'rxkrt retained overhead bytes per pod', value: overheadRatio, atMost: 1.15 }],
  },
];
