// Data sets and shapes shared by the scenarios: krt's BenchmarkControllers pods/services, scaled variants, and helpers.

/** The fields of a core/v1 Pod the controllers read (a plain object, as client-node hands them out). */
export interface Pod {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Readonly<Record<string, string>> };
  readonly spec: { readonly serviceAccountName: string };
  readonly status: { readonly phase: string; readonly podIP?: string };
}

/** The fields of a core/v1 Service the controllers read. */
export interface Service {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: { readonly selector: Readonly<Record<string, string>> };
}

/** krt's benchmark output: a pod's identity, IP and the names of the services selecting it. */
export interface Workload {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly ip: string;
  readonly serviceNames: readonly string[];
}

/** A sequential IPv4 allocator starting at 10.0.0.10, as krt's benchmark uses. */
export class IpAllocator {
  private next = (10 << 24) + 10;

  allocate(): string {
    const n = this.next++;
    return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
}

export function podKey(p: Pod): string {
  return `${p.metadata.namespace}/${p.metadata.name}`;
}

/** krt BenchmarkControllers: `pod-<i>` in `ns-<i%2>`, label `app=app-<i%25>`, Running, sequential IPs. */
export function krtPods(n: number, ips: IpAllocator): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}`, labels: { app: `app-${i % 25}` } },
      spec: { serviceAccountName: 'fake-sa' },
      status: { phase: 'Running', podIP: ips.allocate() },
    });
  }
  return out;
}

/** krt BenchmarkControllers: 50 services `pod-<i>` (sic) in `ns-<i%2>` selecting `app=app-<i%25>`: each pod matches exactly one. */
export function krtServices(n = 50): Service[] {
  const out: Service[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}` }, spec: { selector: { app: `app-${i % 25}` } } });
  }
  return out;
}

/** Labels, namespace and IP of a pod to be given the shape an informer delivers (see `informerShapedPod`). */
export interface PodIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly podIP: string;
}

/**
 * A pod shaped like what an informer delivers: nested metadata with annotations and an owner reference, a
 * container spec, status with conditions. `i` varies the uid, resource version and node.
 */
export function informerShapedPod(i: number, id: PodIdentity): Pod & Record<string, unknown> {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: id.name,
      namespace: id.namespace,
      uid: `0000-${i}`,
      resourceVersion: String(1000 + i),
      labels: id.labels,
      annotations: { 'example.com/owner': 'team-a' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }],
    },
    spec: {
      nodeName: `node-${i % 20}`,
      serviceAccountName: 'default',
      containers: [
        {
          name: 'app',
          image: 'example/app:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'prod' }],
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: id.podIP,
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'ContainersReady', status: 'True' },
      ],
    },
  };
  return pod;
}

/**
 * The object as a watch or list hands it over: parsed from JSON. V8's parser internalizes short strings
 * (names like `pod-12`, label values like `app-3`), so pods share them, which objects built in code do not.
 */
export function fromWire<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/** The same pod with a new IP; the rest is shared, as an immer-produced update would be. */
export function withNewIp(p: Pod, ips: IpAllocator): Pod {
  return { metadata: p.metadata, spec: p.spec, status: { phase: p.status.phase, podIP: ips.allocate() } };
}

/** The pod as a new object whose phase flips between Running and Ready: a change no Workload sees. */
export function withNewPhase(p: Pod): Pod {
  return {
    metadata: p.metadata,
    spec: p.spec,
    status: { phase: p.status.phase === 'Running' ? 'Ready' : 'Running', podIP: p.status.podIP },
  };
}

/** Deep equality of plain data (what reflect.DeepEqual does for these shapes). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A non-empty selector that is a subset of the labels (Kubernetes service selection). */
export function selects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>>): boolean {
  let empty = true;
  for (const k in selector) {
    empty = false;
    if (labels[k] !== selector[k]) return false;
  }
  return !empty;
}

/** A counter that resolves a promise once it reaches a target (for waiting on asynchronous deliveries). */
export class Countdown {
  count = 0;
  private target = Infinity;
  private resolve: (() => void) | undefined;

  hit(n = 1): void {
    this.count += n;
    if (this.count >= this.target && this.resolve !== undefined) {
      const r = this.resolve;
      this.resolve = undefined;
      r();
    }
  }

  /** Resolves when `count` reaches `target`. */
  until(target: number): Promise<void> {
    this.target = target;
    if (this.count >= target) return Promise.resolve();
    return new Promise((r) => (this.resolve = r));
  }
}
