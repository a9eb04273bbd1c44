// Two probes of what B1's initial sync costs rxkrt beyond the hand-written controller, warm (two scavenges
// before each build, no pause). A process runs at one of two speeds that the machine sets (docs/benchmarks.md),
// so the graphs take turns build by build in each child process, and the probe reads several processes:
//   build-sizes   the build at 1 to 2000 pods, per contender: a straight line through the medians gives what a
//                 graph costs whatever its size (fixed) and what each pod adds (per pod)
//   build-layers  rxkrt's B1 graph at 1000 pods built up a layer at a time (the sources and the index, → a
//                 derived collection whose transform returns nothing, → one that returns a Workload without
//                 fetching, → B1's Workloads), beside the hand-written controller's build
import { execFileSync } from 'node:child_process';
import { newCollection, newNamespaceIndex, newStaticCollection, type HandlerContext, type Index } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, type Pod, type Service, type Workload } from './fixtures.js';
import { median, minorGc } from './harness.js';
import { fitLine, type LineFit } from './lineFit.js';
import { workloadOf } from './rxkrtWorkloads.js';
import { rxkrt, strongHand, type Contender } from './workloadContenders.js';

const SIZES = [1, 250, 500, 1000, 2000] as const;
const BUILDS_PER_SIZE = 150;

/** A graph built from pods and services; returns its stop. */
type Build = (pods: readonly Pod[], services: readonly Service[]) => () => void;

const contenderBuild =
  (c: Contender): Build =>
  (pods, services) => {
    const live = c.build(pods, services);
    return () => live.stop();
  };

const NO_NAMES: readonly string[] = Object.freeze([]);

/** A layer of rxkrt's B1 graph: what it adds to the sources and the index. */
function layer(derive: ((index: Index<Service>) => (ctx: HandlerContext, p: Pod) => Workload | undefined) | undefined): Build {
  return (pods, services) => {
    const abort = new AbortController();
    const podC = newStaticCollection<Pod>(pods, { name: 'Pods', stop: abort.signal });
    const svcC = newStaticCollection<Service>(services, { name: 'Services', stop: abort.signal });
    const byNamespace = newNamespaceIndex(svcC);
    if (derive !== undefined) newCollection(podC, derive(byNamespace), { name: 'Workloads', stop: abort.signal }).register(() => {});
    return () => abort.abort();
  };
}

const LAYERS: Record<string, Build> = {
  'hand-written controller (the whole build)': contenderBuild(strongHand),
  'rxkrt: the sources and the namespace index': layer(undefined),
  '… + a derived collection whose transform returns nothing, a handler': layer(() => () => undefined),
  '… whose transform returns a Workload without fetching': layer(() => (_ctx, p) => ({
    metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
    ip: p.status.podIP ?? '',
    serviceNames: NO_NAMES,
  })),
  "… B1's Workloads (a fetch through the namespace index)": layer(workloadOf),
};

const SIZED: Record<string, Build> = { 'hand-written': contenderBuild(strongHand), rxkrt: contenderBuild(rxkrt) };

/**
 * Median µs per build of each graph at each size, the graphs and sizes taking turns build by build, so that
 * the machine's drift and the process's speed meet them all alike: `[graph][size]`.
 */
function timeBuilds(builds: readonly Build[], sizes: readonly number[]): number[][] {
  const inputs = sizes.map((n) => ({ pods: krtPods(n, new IpAllocator()), services: krtServices() }));
  const times = builds.map(() => sizes.map((): number[] => []));
  let stop: (() => void) | undefined;
  for (let i = 0; i < BUILDS_PER_SIZE + 30; i++) {
    for (let b = 0; b < builds.length; b++) {
      for (let s = 0; s < sizes.length; s++) {
        stop?.();
        minorGc();
        minorGc();
        const t0 = performance.now();
        stop = builds[b]!(inputs[s]!.pods, inputs[s]!.services);
        if (i >= 30) times[b]![s]!.push((performance.now() - t0) * 1000);
      }
    }
  }
  stop?.();
  return times.map((bySize) => bySize.map(median));
}

/** One child process per round, which times every graph (see `timeBuilds`): `[process][graph][size]`. */
function inChildren(probe: string, processes: number): number[][][] {
  const out: number[][][] = [];
  for (let p = 0; p < processes; p++) {
    // process.argv[1] is bench/probe.js, which hands `--child` runs back to buildCostChild.
    const args = [...process.execArgv, process.argv[1]!, probe, '--child'];
    out.push(JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as number[][]);
  }
  return out;
}

const fmt = (xs: readonly number[]): string => xs.map((x) => x.toFixed(0)).join(' ');

/** `build-sizes`: fixed and per-pod cost of each contender's build, per process and as the median over them. */
export function buildSizes(processes: number): void {
  const runs = inChildren('build-sizes', processes);
  console.log(`median µs per build at ${SIZES.join(', ')} pods (warm, two scavenges before each), per process:`);
  const names = Object.keys(SIZED);
  const fits = runs.map((graphs) => graphs.map((us) => fitLine(SIZES, us)));
  runs.forEach((graphs, p) =>
    names.forEach((name, g) => {
      const f = fits[p]![g]!;
      console.log(`  ${p + 1} ${name}: ${fmt(graphs[g]!)}; fixed ${f.fixed.toFixed(0)} µs, ${f.perUnit.toFixed(3)} µs per pod`);
    }),
  );
  const over = (pick: (hand: LineFit, rx: LineFit) => number, digits = 3): string =>
    median(fits.map((f) => pick(f[0]!, f[1]!))).toFixed(digits);
  console.log(
    `median over ${processes} processes: fixed µs hand-written ${over((h) => h.fixed, 0)}, rxkrt ${over((_, r) => r.fixed, 0)}; ` +
      `µs per pod hand-written ${over((h) => h.perUnit)}, rxkrt ${over((_, r) => r.perUnit)}; ` +
      `rxkrt / hand-written per pod ${over((h, r) => r.perUnit / h.perUnit)}, at 1000 pods (the medians) ` +
      `${median(runs.map((g) => g[1]![SIZES.indexOf(1000)]! / g[0]![SIZES.indexOf(1000)]!)).toFixed(3)}`,
  );
}

/** `build-layers`: median µs per 1000-pod build of each layer, per process, and over processes as a ratio to the hand-written build. */
export function buildLayers(processes: number): void {
  const runs = inChildren('build-layers', processes);
  console.log(
    `median µs per build of 1000 pods (warm, two scavenges before each): per process; median over them of the ratio to the first row`,
  );
  Object.keys(LAYERS).forEach((name, g) => {
    const us = runs.map((graphs) => graphs[g]![0]!);
    const ratio = median(runs.map((graphs) => graphs[g]![0]! / graphs[0]![0]!));
    console.log(`  ${name}: ${fmt(us)}; ${ratio.toFixed(3)}`);
  });
}

/** In a child: times every graph of the probe, prints the medians as JSON. */
export function buildCostChild(probe: string): void {
  const graphs = probe === 'build-sizes' ? SIZED : LAYERS;
  console.log(JSON.stringify(timeBuilds(Object.values(graphs), probe === 'build-sizes' ? SIZES : [1000])));
}
