// One contender of `npm run bench:counts`, run under callgrind by bench/counts.ts (not meant to be run alone).
//
// Sets up a graph, runs the op untimed until V8 has settled on its code, then runs the measured ops through
// `Array.prototype.findLastIndex` from a function V8 may never optimize: callgrind is started with
// `--toggle-collect=Builtins_ArrayPrototypeFindLastIndex`, so it counts exactly what happens inside those calls (the op, and
// the gcs and compilations it triggers) and nothing of the set-up. Before each measured op two scavenges (not
// counted) leaves the simulated caches as the harness leaves the real ones.
//
// `hand` is the strong hand-written controller (strongHandWritten.ts), `lean` the lean engine (leanEngine.ts; B1 only).
//
//   node --allow-natives-syntax --expose-gc build/bench/countsChild.js <dist folder | hand | lean> <scenario> <pods> <warm-up ops> <measured ops>
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { IpAllocator, krtPods, krtServices, podKey, withNewIp, type Pod, type Service } from './fixtures.js';
import { countsShape, makePods, makeServices, toggled } from './b2Shape.js';
import { scavenge } from './harness.js';
import { choice, defineCli, integer, required, text } from './cli.js';
import { leanEngine } from './workloadContenders.js';

type Workloads = typeof import('./rxkrtWorkloads.js');
type Engine = typeof import('../src/index.js');

/** What one contender does: the same graph and data for every contender, through its own API. */
interface Driver {
  updatePods(pods: readonly Pod[], oneBatch: boolean): void;
  updateService(s: Service): void;
  /** Disposes the graph (what a stop signal does, for those that have one). */
  stop(): void;
}

async function driverFor(contender: string, pods: Pod[], services: Service[]): Promise<Driver> {
  return (await builderFor(contender))(pods, services);
}

/** The contender's graph builder, its modules loaded: a build then runs synchronously, as B1's sync times it. */
async function builderFor(contender: string): Promise<(pods: Pod[], services: Service[]) => Driver> {
  if (contender === 'hand') return handDriver;
  if (contender === 'lean') return leanDriver;
  const { buildRxkrtWorkloads } = (await import(pathToFileURL(join(contender, 'bench', 'rxkrtWorkloads.js')).href)) as Workloads;
  const { batch } = (await import(pathToFileURL(join(contender, 'src', 'index.js')).href)) as Engine;
  return (pods, services) => {
    const g = buildRxkrtWorkloads(pods, services);
    const write = (next: readonly Pod[]): void => {
      for (const p of next) g.pods.updateObject(p);
    };
    return {
      updatePods: (next, oneBatch) => (oneBatch ? batch(() => write(next)) : write(next)),
      updateService: (s) => g.services.updateObject(s),
      stop: () => g.stop(),
    };
  };
}

function handDriver(pods: Pod[], services: Service[]): Driver {
  const c = StrongHandWrittenController.build(pods, services, () => {});
  return {
    updatePods: (next, oneBatch) => {
      for (const p of next) {
        c.podEvent(podKey(p), p);
        if (!oneBatch) c.drain();
      }
      c.drain();
    },
    updateService: (s) => {
      c.serviceEvent(`${s.metadata.namespace}/${s.metadata.name}`, s);
      c.drain();
    },
    // Nothing to dispose: the controller holds no timers, watches or signals.
    stop: () => {},
  };
}

function leanDriver(pods: Pod[], services: Service[]): Driver {
  const live = leanEngine.build(pods, services);
  return {
    updatePods: (next, oneBatch) => (oneBatch ? live.updateBatch(next) : live.updateEach(next)),
    updateService: (s) => live.updateService(s),
    stop: () => live.stop(),
  };
}

/** Runs an op, for `findLastIndex` (which finds nothing). */
function callOp(op: () => void): boolean {
  op();
  return false;
}

const CLI = defineCli({
  tool: 'countsChild',
  usage: 'countsChild <dist | hand | lean> <scenario> <pods> <warm-up ops> <measured ops>',
  positionals: {
    contender: required(text()),
    scenario: required(choice(['burst', 'fanout', 'b1', 'b1tx', 'b1sync'])),
    pods: required(integer({ min: 1 })),
    warm: required(integer({ min: 0 })),
    ops: required(integer({ min: 1 })),
  },
});

async function main(): Promise<void> {
  const { contender, scenario, pods: podCount, warm, ops } = CLI.parseOrExit();
  const ips = new IpAllocator();
  let prepare: () => void;
  let op: () => void;
  if (scenario === 'burst' || scenario === 'fanout') {
    const shape = countsShape(podCount);
    const pods = makePods(shape, ips);
    const d = await driverFor(contender, pods, makeServices(shape));
    if (scenario === 'burst') {
      let at = 0;
      let next: Pod[] = [];
      prepare = () => {
        next = [];
        for (let k = 0; k < shape.burst; k++) next.push(withNewIp(pods[(at + k) % pods.length]!, ips));
      };
      op = () => {
        d.updatePods(next, true);
        for (let k = 0; k < next.length; k++) pods[(at + k) % pods.length] = next[k]!;
        at = (at + shape.burst) % pods.length;
      };
    } else {
      let broad = false;
      let s: Service = toggled(shape, broad);
      prepare = () => {
        broad = !broad;
        s = toggled(shape, broad);
      };
      op = () => d.updateService(s);
    }
  } else if (scenario === 'b1sync') {
    // Each op builds the graph from 1000 fresh pods; the one before is stopped while the next op is prepared.
    const services = krtServices();
    let built: Driver | undefined;
    let pods: Pod[] = [];
    prepare = () => {
      built?.stop();
      built = undefined;
      pods = krtPods(1000, ips);
    };
    // Its modules load here, once, so that each op times the build alone.
    const build = await builderFor(contender);
    op = () => {
      built = build(pods, services);
    };
  } else {
    let pods = krtPods(1000, ips);
    const d = await driverFor(contender, pods, krtServices());
    let next: Pod[] = [];
    prepare = () => {
      next = pods.map((p) => withNewIp(p, ips));
    };
    op = () => {
      d.updatePods(next, scenario === 'b1');
      pods = next;
    };
  }
  // The measured call: callgrind counts inside Array.prototype.findLastIndex only, a builtin that neither
  // node's own code (its primordials) nor rxkrt calls, and that an optimized caller would inline away.
  // (ES2023, which Node 20 has and the project's `lib` setting, ES2022, does not declare.)
  const once = [op] as unknown as { findLastIndex(f: (op: () => void) => boolean): number };
  const measured = (): void => {
    once.findLastIndex(callOp);
  };
  (new Function('f', '%NeverOptimizeFunction(f)') as (f: () => void) => void)(measured);
  for (let r = 0; r < warm; r++) {
    prepare();
    op();
  }
  for (let r = 0; r < ops; r++) {
    prepare();
    scavenge();
    measured();
  }
}

await main();
