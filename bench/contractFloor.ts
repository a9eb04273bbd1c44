// The contract floor: the least work a controller keeping rxkrt's API contract does for B1's pod updates.
//
// It is the strong hand-written controller cut down to what B1's pod updates and initial sync exercise (no
// service changes, so no pods-by-namespace map and no re-filing), plus what the contract obliges any
// implementation to do on top: freeze every input it stores and every output it hands out ("objects handed
// out by collections are immutable"), and suppress an update with the collection's `equals` (by default deep
// structural equality) instead of a comparison of the two fields this one transform can change. Whatever it
// costs over the hand-written controller, no design keeping the contract can avoid; a target below its ratio
// is out of reach. It is a copy, not a subclass, so that the baseline's property loads never see a frozen
// object in the same process (frozen objects have their own hidden classes).
import { equals } from '../src/index.js';
import { podKey, selects, type Pod, type Service, type Workload } from './fixtures.js';
import type { WorkloadEvent } from './handWritten.js';
import { anchorOf, insertByRank, type AnchorIndex } from './strongHandWritten.js';

export class ContractFloorController {
  private readonly pods = new Map<string, Pod>();
  private readonly anchorsByNs = new Map<string, AnchorIndex>();
  private readonly rankScratch: number[] = [];
  readonly workloads = new Map<string, Workload>();
  private queue = new Set<string>();

  private constructor(private readonly emit: (e: WorkloadEvent) => void) {}

  podEvent(key: string, next: Pod): void {
    this.pods.set(key, Object.freeze(next));
    this.queue.add(key);
  }

  serviceEvent(): never {
    throw new Error('the contract floor takes pod updates only');
  }

  drain(): void {
    while (this.queue.size > 0) {
      const keys = this.queue;
      this.queue = new Set();
      for (const k of keys) this.reconcile(k);
    }
  }

  private reconcile(key: string): void {
    const pod = this.pods.get(key)!;
    const prev = this.workloads.get(key);
    const ip = pod.status.podIP;
    if (ip === undefined || ip === '') {
      if (prev !== undefined) {
        this.workloads.delete(key);
        this.emit({ type: 'delete', old: prev });
      }
      return;
    }
    const names: string[] = [];
    const anchors = this.anchorsByNs.get(pod.metadata.namespace);
    if (anchors !== undefined) {
      const labels = pod.metadata.labels;
      const ranks = this.rankScratch;
      ranks.length = 0;
      for (const k in labels) {
        const bucket = anchors.get(k)?.get(labels[k]!);
        if (bucket === undefined) continue;
        for (const f of bucket.values()) if (selects(f.svc.spec.selector, labels)) insertByRank(names, ranks, f.svc.metadata.name, f.rank);
      }
    }
    const wl: Workload = Object.freeze({
      metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
      ip,
      serviceNames: names,
    });
    if (prev !== undefined && equals(prev, wl)) return;
    this.workloads.set(key, wl);
    this.emit(prev === undefined ? { type: 'add', new: wl } : { type: 'update', old: prev, new: wl });
  }

  /** The services are filed once, in the order given (their rank); pods are frozen as they are stored. */
  static build(pods: readonly Pod[], services: readonly Service[], emit: (e: WorkloadEvent) => void): ContractFloorController {
    const c = new ContractFloorController(emit);
    services.forEach((svc, rank) => {
      Object.freeze(svc);
      const anchor = anchorOf(svc.spec.selector);
      if (anchor === undefined) return;
      let ns = c.anchorsByNs.get(svc.metadata.namespace);
      if (ns === undefined) c.anchorsByNs.set(svc.metadata.namespace, (ns = new Map()));
      let byValue = ns.get(anchor);
      if (byValue === undefined) ns.set(anchor, (byValue = new Map()));
      const value = svc.spec.selector[anchor]!;
      let bucket = byValue.get(value);
      if (bucket === undefined) byValue.set(value, (bucket = new Map()));
      bucket.set(`${svc.metadata.namespace}/${svc.metadata.name}`, { svc, rank });
    });
    for (const p of pods) c.podEvent(podKey(p), p);
    c.drain();
    return c;
  }
}
