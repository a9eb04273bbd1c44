// The rxkrt Workload controller of krt's BenchmarkControllers: pods × (services by namespace, selecting the pod).
import {
  filterSelectsNonEmpty,
  newCollection,
  newNamespaceIndex,
  newStaticCollection,
  type Collection,
  type HandlerContext,
  type Index,
  type StaticCollection,
} from '../src/index.js';
import type { Pod, Service, Workload } from './fixtures.js';

export interface RxkrtWorkloads {
  readonly pods: StaticCollection<Pod>;
  readonly services: StaticCollection<Service>;
  readonly workloads: Collection<Workload>;
  /** Events the handler has seen. */
  events: number;
  /** Disposes the graph. */
  stop(): void;
}

/** krt's Workload transform: a pod with an IP, and the names of the services of its namespace that select it. */
export function workloadOf(servicesByNamespace: Index<Service>): (ctx: HandlerContext, p: Pod) => Workload | undefined {
  return (ctx, p) => {
    const ip = p.status.podIP;
    if (ip === undefined || ip === '') return undefined;
    const svcs = servicesByNamespace.fetch(ctx, p.metadata.namespace, filterSelectsNonEmpty(p.metadata.labels));
    return { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip, serviceNames: svcs.map((s) => s.metadata.name) };
  };
}

/** Builds sources, the namespace index, the derived Workloads and a counting handler; synced on return. */
export function buildRxkrtWorkloads(pods: readonly Pod[], services: readonly Service[]): RxkrtWorkloads {
  const abort = new AbortController();
  const podC = newStaticCollection<Pod>(pods, { name: 'Pods', stop: abort.signal });
  const svcC = newStaticCollection<Service>(services, { name: 'Services', stop: abort.signal });
  const servicesByNamespace = newNamespaceIndex(svcC);
  const workloads = newCollection<Pod, Workload>(podC, workloadOf(servicesByNamespace), { name: 'Workloads', stop: abort.signal });
  const g: RxkrtWorkloads = { pods: podC, services: svcC, workloads, events: 0, stop: () => abort.abort() };
  // krt's benchmark registers a per-event handler.
  const reg = workloads.register(() => {
    g.events++;
  });
  if (!reg.hasSynced()) throw new Error('rxkrt Workloads did not sync on construction');
  return g;
}
