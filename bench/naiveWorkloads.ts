// The naive controller: after every pod event, rebuild every workload from the lists and diff the result.
import { deepEqual, podKey, selects, type Pod, type Service, type Workload } from './fixtures.js';

export class NaiveController {
  private readonly pods = new Map<string, Pod>();
  private readonly services: Service[];
  private current = new Map<string, Workload>();
  events = 0;

  constructor(pods: readonly Pod[], services: readonly Service[]) {
    for (const p of pods) this.pods.set(podKey(p), p);
    this.services = [...services];
    this.rebuild();
  }

  podEvent(p: Pod): void {
    this.pods.set(podKey(p), p);
    this.rebuild();
  }

  /** The current Workloads (for the output check). */
  get workloads(): ReadonlyMap<string, Workload> {
    return this.current;
  }

  private rebuild(): void {
    const next = new Map<string, Workload>();
    for (const [key, p] of this.pods) {
      const ip = p.status.podIP;
      if (ip === undefined || ip === '') continue;
      const names: string[] = [];
      for (const s of this.services) {
        if (s.metadata.namespace === p.metadata.namespace && selects(s.spec.selector, p.metadata.labels)) names.push(s.metadata.name);
      }
      const wl: Workload = { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip, serviceNames: names };
      const prev = this.current.get(key);
      if (prev !== undefined && deepEqual(prev, wl)) next.set(key, prev);
      else {
        this.events++;
        next.set(key, wl);
      }
    }
    for (const k of this.current.keys()) if (!next.has(k)) this.events++;
    this.current = next;
  }
}
