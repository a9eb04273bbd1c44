// B2's data set: its shapes (full and quick), its pods and services, and the selector its fan-out toggles.
// Kept apart from the scenario so that a script can build B2's data without loading rxkrt (bench:ab loads
// two builds of it, and neither may be loaded before the other by an import of this file).
import { fromWire, informerShapedPod, type IpAllocator, type Pod, type PodIdentity, type Service } from './fixtures.js';

export interface Shape {
  pods: number;
  namespaces: number;
  /** Services per namespace (the first 40 select one app each, the other 10 narrow an app by shard). */
  servicesPerNs: number;
  burst: number;
  fanout: number;
}

export const FULL: Shape = { pods: 100_000, namespaces: 100, servicesPerNs: 50, burst: 10_000, fanout: 1000 };
export const QUICK: Shape = { pods: 5_000, namespaces: 5, servicesPerNs: 50, burst: 5_000, fanout: 1000 };

/**
 * B2's shape at `pods` pods for `npm run bench:counts`, which runs under callgrind: 1000 pods a namespace,
 * and bursts of 1000 updates (a different part of the pods each op), so that an op stays short.
 */
export function countsShape(pods: number): Shape {
  return { pods, namespaces: pods / 1000, servicesPerNs: 50, burst: 1000, fanout: 1000 };
}

/**
 * Pod j of a namespace has `app=app-<j%40>`, `shard=s-<j%2>`, `part-of=bench`. Services 0..39 select
 * `app=app-<s>`; services 40..49 select `app=app-<s-40>, shard=s-0`. So every pod matches one or two services.
 */
export function makePods(s: Shape, ips: IpAllocator): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < s.pods; i++) {
    const id = podIdentity(s, i, ips);
    out.push({
      metadata: { name: id.name, namespace: id.namespace, labels: id.labels },
      spec: { serviceAccountName: 'fake-sa' },
      status: { phase: 'Running', podIP: id.podIP },
    });
  }
  return out;
}

/**
 * The same pods with everything else a real pod carries (annotations, an owner reference, a container, status
 * conditions), parsed from JSON as a watch delivers them: raw objects of a realistic size, for the heap ratio.
 */
export function makeInformerPods(s: Shape, ips: IpAllocator): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < s.pods; i++) out.push(fromWire(informerShapedPod(i, podIdentity(s, i, ips))));
  return out;
}

function podIdentity(s: Shape, i: number, ips: IpAllocator): PodIdentity {
  const ns = i % s.namespaces;
  const j = Math.floor(i / s.namespaces);
  return {
    name: `pod-${i}`,
    namespace: `ns-${ns}`,
    labels: { app: `app-${j % 40}`, shard: `s-${j % 2}`, 'part-of': 'bench' },
    podIP: ips.allocate(),
  };
}

export function makeServices(s: Shape): Service[] {
  const out: Service[] = [];
  for (let ns = 0; ns < s.namespaces; ns++) {
    for (let k = 0; k < s.servicesPerNs; k++) {
      const selector: Record<string, string> = k < 40 ? { app: `app-${k}` } : { app: `app-${k - 40}`, shard: 's-0' };
      out.push({ metadata: { name: `svc-${k}`, namespace: `ns-${ns}` }, spec: { selector } });
    }
  }
  return out;
}

/** The service whose selector the fan-out toggles: `ns-0/svc-0`, between `app=app-0` and `part-of=bench` (every pod of ns-0). */
export function toggled(s: Shape, broad: boolean): Service {
  return { metadata: { name: 'svc-0', namespace: 'ns-0' }, spec: { selector: broad ? { 'part-of': 'bench' } : { app: 'app-0' } } };
}
