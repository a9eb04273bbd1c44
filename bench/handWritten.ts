// The baseline: a Workload controller written by hand, the way a careful engineer would without a framework.
//
// Stores with a namespace index (what a client-go informer's indexer gives), a de-duplicating work queue of
// pod keys, and a reconcile that reads the pod, lists the services of its namespace, matches selectors,
// deep-compares with the previous output and emits only real changes. Service events enqueue the pods
// their old or new selector matches. The queue is drained after each burst (an informer delivers a burst,
// then the worker catches up).
import { deepEqual, podKey, selects, type Pod, type Service, type Workload } from './fixtures.js';

export type WorkloadEvent = { type: 'add' | 'update' | 'delete'; old?: Workload; new?: Workload };

export class HandWrittenController {
  private readonly pods = new Map<string, Pod>();
  private readonly podsByNs = new Map<string, Map<string, Pod>>();
  private readonly services = new Map<string, Service>();
  private readonly servicesByNs = new Map<string, Map<string, Service>>();
  readonly workloads = new Map<string, Workload>();
  private queue = new Set<string>();

  constructor(private readonly emit: (e: WorkloadEvent) => void) {}

  /** Informer event for a pod (undefined `next` = deleted). */
  podEvent(key: string, next: Pod | undefined): void {
    const old = this.pods.get(key);
    if (old !== undefined && old.metadata.namespace !== next?.metadata.namespace) this.podsByNs.get(old.metadata.namespace)?.delete(key);
    if (next === undefined) this.pods.delete(key);
    else {
      this.pods.set(key, next);
      indexed(this.podsByNs, next.metadata.namespace).set(key, next);
    }
    this.queue.add(key);
  }

  /** Informer event for a service: enqueue the pods its old or new selector matches. */
  serviceEvent(key: string, next: Service | undefined): void {
    const old = this.services.get(key);
    // Replacing in place keeps the namespace's iteration order (and so the order of serviceNames) stable.
    if (old !== undefined && old.metadata.namespace !== next?.metadata.namespace)
      this.servicesByNs.get(old.metadata.namespace)?.delete(key);
    if (next === undefined) this.services.delete(key);
    else {
      this.services.set(key, next);
      indexed(this.servicesByNs, next.metadata.namespace).set(key, next);
    }
    for (const svc of [old, next]) {
      if (svc === undefined) continue;
      const pods = this.podsByNs.get(svc.metadata.namespace);
      if (pods === undefined) continue;
      for (const [k, p] of pods) if (selects(svc.spec.selector, p.metadata.labels)) this.queue.add(k);
    }
  }

  /** The worker: reconciles queued keys until the queue is empty. */
  drain(): void {
    while (this.queue.size > 0) {
      const keys = this.queue;
      this.queue = new Set();
      for (const k of keys) this.reconcile(k);
    }
  }

  private reconcile(key: string): void {
    const pod = this.pods.get(key);
    const prev = this.workloads.get(key);
    const ip = pod?.status.podIP;
    if (pod === undefined || ip === undefined || ip === '') {
      if (prev !== undefined) {
        this.workloads.delete(key);
        this.emit({ type: 'delete', old: prev });
      }
      return;
    }
    const names: string[] = [];
    const svcs = this.servicesByNs.get(pod.metadata.namespace);
    if (svcs !== undefined) for (const s of svcs.values()) if (selects(s.spec.selector, pod.metadata.labels)) names.push(s.metadata.name);
    const wl: Workload = { metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace }, ip, serviceNames: names };
    if (prev !== undefined && deepEqual(prev, wl)) return;
    this.workloads.set(key, wl);
    this.emit(prev === undefined ? { type: 'add', new: wl } : { type: 'update', old: prev, new: wl });
  }

  /** Initial sync: the informers' initial lists, then one drain. */
  static build(pods: readonly Pod[], services: readonly Service[], emit: (e: WorkloadEvent) => void): HandWrittenController {
    const c = new HandWrittenController(emit);
    for (const s of services) c.serviceEvent(`${s.metadata.namespace}/${s.metadata.name}`, s);
    for (const p of pods) c.podEvent(podKey(p), p);
    c.drain();
    return c;
  }
}

function indexed<V>(m: Map<string, Map<string, V>>, ns: string): Map<string, V> {
  let g = m.get(ns);
  if (g === undefined) m.set(ns, (g = new Map()));
  return g;
}
