// The strong baseline: the Workload controller a competent engineer writes by hand when speed matters.
//
// Like `handWritten.ts` (informer stores, a de-duplicating queue of pod keys, a worker that drains it), but
// a pod's services come from an inverted index, not from a scan of its namespace: every service is filed
// under one pair of its selector (its anchor, `key=value`), per namespace, so a pod looks up the services
// anchored at each of its own labels and tests only those. Service events update the index in place. The
// reconcile compares the two fields of a Workload that can change (IP and service names) and allocates the
// Workload only when it did change. Service names come in the order the services first appeared (as a scan of
// the namespace gives them, and rxkrt's index), whatever anchor they are filed under now.
import { podKey, selects, type Pod, type Service, type Workload } from './fixtures.js';
import type { WorkloadEvent } from './handWritten.js';

/** A service as filed, with the rank of its first appearance. */
export interface Filed {
  readonly svc: Service;
  readonly rank: number;
}

/** One namespace's services, filed by anchor: label key, then label value, then service key. */
export type AnchorIndex = Map<string, Map<string, Map<string, Filed>>>;

export class StrongHandWrittenController {
  private readonly pods = new Map<string, Pod>();
  private readonly podsByNs = new Map<string, Map<string, Pod>>();
  private readonly services = new Map<string, Service>();
  private readonly anchorsByNs = new Map<string, AnchorIndex>();
  private readonly ranks = new Map<string, number>();
  private nextRank = 0;
  /** The ranks of the names being collected by `reconcile`, reused from call to call. */
  private readonly rankScratch: number[] = [];
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
      let g = this.podsByNs.get(next.metadata.namespace);
      if (g === undefined) this.podsByNs.set(next.metadata.namespace, (g = new Map()));
      g.set(key, next);
    }
    this.queue.add(key);
  }

  /** Informer event for a service: re-file it in the index and enqueue the pods its old or new selector matches. */
  serviceEvent(key: string, next: Service | undefined): void {
    const old = this.services.get(key);
    if (old !== undefined) this.unfile(key, old);
    if (next === undefined) {
      this.services.delete(key);
      this.ranks.delete(key);
    } else {
      this.services.set(key, next);
      if (!this.ranks.has(key)) this.ranks.set(key, this.nextRank++);
      this.file(key, next);
    }
    if (old !== undefined) this.enqueueSelected(old);
    if (next !== undefined && (old === undefined || old.spec.selector !== next.spec.selector)) this.enqueueSelected(next);
  }

  /** The worker: reconciles queued keys until the queue is empty. */
  drain(): void {
    while (this.queue.size > 0) {
      const keys = this.queue;
      this.queue = new Set();
      for (const k of keys) this.reconcile(k);
    }
  }

  private enqueueSelected(svc: Service): void {
    const pods = this.podsByNs.get(svc.metadata.namespace);
    if (pods === undefined) return;
    for (const [k, p] of pods) if (selects(svc.spec.selector, p.metadata.labels)) this.queue.add(k);
  }

  private file(key: string, svc: Service): void {
    const anchor = anchorOf(svc.spec.selector);
    if (anchor === undefined) return;
    let ns = this.anchorsByNs.get(svc.metadata.namespace);
    if (ns === undefined) this.anchorsByNs.set(svc.metadata.namespace, (ns = new Map()));
    let byValue = ns.get(anchor);
    if (byValue === undefined) ns.set(anchor, (byValue = new Map()));
    const value = svc.spec.selector[anchor]!;
    let bucket = byValue.get(value);
    if (bucket === undefined) byValue.set(value, (bucket = new Map()));
    bucket.set(key, { svc, rank: this.ranks.get(key)! });
  }

  private unfile(key: string, svc: Service): void {
    const anchor = anchorOf(svc.spec.selector);
    if (anchor === undefined) return;
    const byValue = this.anchorsByNs.get(svc.metadata.namespace)?.get(anchor);
    const value = svc.spec.selector[anchor]!;
    const bucket = byValue?.get(value);
    if (bucket === undefined) return;
    bucket.delete(key);
    if (bucket.size === 0) byValue!.delete(value);
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
    const names = this.serviceNamesOf(pod);
    if (prev !== undefined && prev.ip === ip && sameNames(prev.serviceNames, names)) return;
    const wl: Workload = { metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace }, ip, serviceNames: names };
    this.workloads.set(key, wl);
    this.emit(prev === undefined ? { type: 'add', new: wl } : { type: 'update', old: prev, new: wl });
  }

  /** The names of the services selecting `pod`, in the order the services first appeared. */
  serviceNamesOf(pod: Pod): string[] {
    const names: string[] = [];
    const anchors = this.anchorsByNs.get(pod.metadata.namespace);
    if (anchors === undefined) return names;
    const labels = pod.metadata.labels;
    const ranks = this.rankScratch;
    ranks.length = 0;
    for (const k in labels) {
      const bucket = anchors.get(k)?.get(labels[k]!);
      if (bucket === undefined) continue;
      for (const f of bucket.values()) if (selects(f.svc.spec.selector, labels)) insertByRank(names, ranks, f.svc.metadata.name, f.rank);
    }
    return names;
  }

  /** Initial sync: the informers' initial lists, then one drain. */
  static build(pods: readonly Pod[], services: readonly Service[], emit: (e: WorkloadEvent) => void): StrongHandWrittenController {
    const c = new StrongHandWrittenController(emit);
    for (const s of services) c.serviceEvent(`${s.metadata.namespace}/${s.metadata.name}`, s);
    for (const p of pods) c.podEvent(podKey(p), p);
    c.drain();
    return c;
  }
}

/** The selector's first key: where the service is filed. An empty selector selects nothing and is not filed. */
export function anchorOf(selector: Readonly<Record<string, string>>): string | undefined {
  for (const k in selector) return k;
  return undefined;
}

/**
 * Inserts `item` into `items`, kept in order of `ranks` (a pod matches a handful of services at most). It reads
 * nothing of the items, so the floors share it with the baseline without making its property loads polymorphic.
 */
export function insertByRank<T>(items: T[], ranks: number[], item: T, rank: number): void {
  let i = items.length;
  items.push(item);
  ranks.push(rank);
  while (i > 0 && ranks[i - 1]! > rank) {
    items[i] = items[i - 1]!;
    ranks[i] = ranks[i - 1]!;
    i--;
  }
  items[i] = item;
  ranks[i] = rank;
}

export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
