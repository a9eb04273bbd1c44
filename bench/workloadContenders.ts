// The contenders of the Workload scenarios (B1, B2, bench:pairs, bench:scale) behind one interface: build on a
// data set, apply pod updates (in one batch or one at a time), change a service, give the outputs.
import { batch } from '../src/index.js';
import { podKey, type Pod, type Service, type Workload } from './fixtures.js';
import { HandWrittenController } from './handWritten.js';
import { StrongHandWrittenController } from './strongHandWritten.js';
import { ContractFloorController } from './contractFloor.js';
import { FloorDerived, FloorServiceIndex, FloorSource, floorWorkloadOf } from './engineFloor.js';
import { LeanDerived, LeanServiceIndex, LeanSource } from './leanEngine.js';
import { leanBatch } from './leanTransactions.js';
import { buildRxkrtWorkloads, type RxkrtWorkloads } from './rxkrtWorkloads.js';
import { buildMobxWorkloads, type MobxWorkloads } from './mobxWorkloads.js';
import { NaiveController } from './naiveWorkloads.js';
import { canonicalSet } from './canonical.js';

/** A built contender: its graph and what can be done to it. */
export interface Live {
  /** Workload events seen so far (the initial sync's adds included). */
  events(): number;
  /** Pod updates as one unit: one batch, one drain, one action. */
  updateBatch(pods: readonly Pod[]): void;
  /** Pod updates one at a time: one transaction or one drain per update. */
  updateEach(pods: readonly Pod[]): void;
  updateService(svc: Service): void;
  /** The current Workloads. */
  outputs(): Iterable<Workload>;
  stop(): void;
}

export interface Contender {
  name: string;
  build(pods: readonly Pod[], services: readonly Service[]): Live;
}

const serviceKey = (s: Service): string => `${s.metadata.namespace}/${s.metadata.name}`;

/** Either hand-written controller: informer events, then the worker drains the queue. */
function handLive(make: (pods: readonly Pod[], services: readonly Service[], emit: () => void) => HandLike) {
  return (pods: readonly Pod[], services: readonly Service[]): Live => {
    let n = 0;
    const c = make(pods, services, () => n++);
    return {
      events: () => n,
      updateBatch: (next) => {
        for (const p of next) c.podEvent(podKey(p), p);
        c.drain();
      },
      updateEach: (next) => {
        for (const p of next) {
          c.podEvent(podKey(p), p);
          c.drain();
        }
      },
      updateService: (svc) => {
        c.serviceEvent(serviceKey(svc), svc);
        c.drain();
      },
      outputs: () => c.workloads.values(),
      stop: () => {},
    };
  };
}

interface HandLike {
  podEvent(key: string, p: Pod): void;
  serviceEvent(key: string, s: Service): void;
  drain(): void;
  readonly workloads: ReadonlyMap<string, Workload>;
}

/** The headline baseline: selector index, typed equality (`strongHandWritten.ts`). */
export const strongHand: Contender = {
  name: 'hand-written',
  build: handLive((p, s, emit) => StrongHandWrittenController.build(p, s, emit)),
};

/** The hand-written controller plus what rxkrt's API contract obliges (`contractFloor.ts`); pod updates only. */
export const contractFloor: Contender = {
  name: 'contract floor',
  build: handLive((p, s, emit) => ContractFloorController.build(p, s, emit)),
};

/** The earlier baseline: scans its namespace's services per pod and deep-compares (`handWritten.ts`). */
export const weakHand: Contender = {
  name: 'hand-written, weak (scan, deep-equal)',
  build: handLive((p, s, emit) => HandWrittenController.build(p, s, emit)),
};

/** The least a dependency-tracking engine does on top of the contract (`engineFloor.ts`); pod updates only. */
export const engineFloor: Contender = {
  name: 'engine floor',
  build: (pods, services) => {
    const podSource = new FloorSource<Pod>(pods, podKey);
    const index = new FloorServiceIndex(new FloorSource<Service>(services, serviceKey));
    const workloads = new FloorDerived<Pod, Workload>(podSource, floorWorkloadOf(index));
    let n = 0;
    workloads.register(() => {
      n++;
    });
    return {
      events: () => n,
      updateBatch: (next) => podSource.write(next),
      updateEach: (next) => {
        for (const p of next) podSource.write([p]);
      },
      updateService: () => {
        throw new Error('the engine floor takes pod updates only');
      },
      outputs: () => workloads.values(),
      stop: () => {},
    };
  },
};

/** The engine floor plus what rxkrt's contract obliges an engine to do on B1's path (`leanEngine.ts`); pod updates only. */
export const leanEngine: Contender = {
  name: 'lean engine',
  build: (pods, services) => {
    const abort = new AbortController();
    const podSource = new LeanSource<Pod>(pods, 'Pods', abort.signal);
    const index = new LeanServiceIndex(new LeanSource<Service>(services, 'Services', abort.signal));
    const workloads = new LeanDerived<Pod, Workload>(podSource, floorWorkloadOf(index), 'Workloads', abort.signal);
    let n = 0;
    workloads.register(() => {
      n++;
    });
    return {
      events: () => n,
      updateBatch: (next) =>
        leanBatch(() => {
          for (const p of next) podSource.updateObject(p);
        }),
      updateEach: (next) => {
        for (const p of next) podSource.updateObject(p);
      },
      updateService: () => {
        throw new Error('the lean engine takes pod updates only');
      },
      outputs: () => workloads.values(),
      stop: () => abort.abort(),
    };
  },
};

export const rxkrt: Contender = {
  name: 'rxkrt',
  build: (pods, services) => {
    const g: RxkrtWorkloads = buildRxkrtWorkloads(pods, services);
    return {
      events: () => g.events,
      updateBatch: (next) =>
        batch(() => {
          for (const p of next) g.pods.updateObject(p);
        }),
      updateEach: (next) => {
        for (const p of next) g.pods.updateObject(p);
      },
      updateService: (svc) => g.services.updateObject(svc),
      outputs: () => g.workloads.list(),
      stop: () => g.stop(),
    };
  },
};

export const mobx: Contender = {
  name: 'MobX',
  build: (pods, services) => {
    const g: MobxWorkloads = buildMobxWorkloads(pods, services);
    return {
      events: () => g.events,
      updateBatch: (next) => g.updatePods(next),
      updateEach: (next) => {
        for (const p of next) g.updatePods([p]);
      },
      updateService: () => {
        throw new Error('the MobX contender does not take service changes');
      },
      outputs: function* () {
        for (const w of g.workloads.values()) {
          const v = w.get();
          if (v !== undefined) yield v;
        }
      },
      stop: () => g.stop(),
    };
  },
};

export const naive: Contender = {
  name: 'naive rebuild',
  build: (pods, services) => {
    const c = new NaiveController(pods, services);
    return {
      events: () => c.events,
      updateBatch: () => {
        throw new Error('the naive contender rebuilds per event');
      },
      updateEach: (next) => {
        for (const p of next) c.podEvent(p);
      },
      updateService: () => {
        throw new Error('the naive contender does not take service changes');
      },
      outputs: () => c.workloads.values(),
      stop: () => {},
    };
  },
};

/** A contender's outputs in canonical form (see `canonical.ts`). */
export function outputsOf(live: Live): string {
  return canonicalSet(live.outputs());
}
