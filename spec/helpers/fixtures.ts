// Shared test fixtures: krt's collection_test.go model (pods, services, SimplePods, SizedPods, endpoints) in rxkrt terms.
import {
  fetch,
  filterLabel,
  newCollection,
  newManyCollection,
  type Collection,
  type Event,
  type Registration,
  setLogger,
} from '../../src/index.js';
import { internal } from '../../src/engine/internalCollection.js';

export type Labels = Record<string, string>;

/** A Kubernetes-like Pod: key `namespace/name`. */
export interface Pod {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels?: Labels };
  readonly status?: { readonly podIP?: string };
}

/** A Kubernetes-like Service with a plain-map selector. */
export interface Service {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels?: Labels };
  readonly spec?: { readonly selector?: Labels };
}

/** A Kubernetes-like ConfigMap. */
export interface ConfigMap {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels?: Labels };
  readonly data?: Record<string, string>;
}

export const NS = 'namespace';

export function pod(name: string, ip?: string, labels?: Labels, ns = NS): Pod {
  return { metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, ...(ip !== undefined ? { status: { podIP: ip } } : {}) };
}

export function service(name: string, selector: Labels, ns = NS): Service {
  return { metadata: { name, namespace: ns }, spec: { selector } };
}

export function configMap(name: string, labels?: Labels, ns = NS, data?: Record<string, string>): ConfigMap {
  return { metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, ...(data ? { data } : {}) };
}

/** krt's SimplePod: Named + Labeled + IP, only for pods that have an IP. */
export interface SimplePod {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Labels };
  readonly ip: string;
}

export function simplePods(pods: Collection<Pod>, name = 'SimplePods'): Collection<SimplePod> {
  return newCollection(
    pods,
    (_ctx, p): SimplePod | undefined =>
      p.status?.podIP
        ? { metadata: { name: p.metadata.name, namespace: p.metadata.namespace, labels: p.metadata.labels ?? {} }, ip: p.status.podIP }
        : undefined,
    { name },
  );
}

/** krt's SizedPod: pods with a `size` label. */
export interface SizedPod {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly size: string;
}

export function sizedPods(pods: Collection<Pod>): Collection<SizedPod> {
  return newCollection(
    pods,
    (_ctx, p): SizedPod | undefined => {
      const size = p.metadata.labels?.['size'];
      return size === undefined ? undefined : { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, size };
    },
    { name: 'SizedPods' },
  );
}

/** krt's SimpleService: Named + selector. */
export interface SimpleService {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly selector: Labels;
}

export function simpleServices(services: Collection<Service>): Collection<SimpleService> {
  return newCollection(
    services,
    (_ctx, s): SimpleService => ({
      metadata: { name: s.metadata.name, namespace: s.metadata.namespace },
      selector: s.spec?.selector ?? {},
    }),
    { name: 'SimpleServices' },
  );
}

/** krt's SimpleEndpoint, keyed `namespace/service/pod`. */
export interface SimpleEndpoint {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly pod: string;
  readonly service: string;
  readonly ip: string;
}

export function simpleEndpoints(svcs: Collection<SimpleService>, pods: Collection<SimplePod>): Collection<SimpleEndpoint> {
  return newManyCollection(
    svcs,
    (ctx, svc) =>
      fetch(ctx, pods, filterLabel(svc.selector)).map((p) => ({
        metadata: { name: `${svc.metadata.name}/${p.metadata.name}`, namespace: svc.metadata.namespace },
        pod: p.metadata.name,
        service: svc.metadata.name,
        ip: p.ip,
      })),
    { name: 'SimpleEndpoints' },
  );
}

/** Sorted keys of a collection: what `list()` holds, independent of order. */
export function keysOf<T extends { metadata: { name: string; namespace?: string } }>(c: Collection<T>): string[] {
  return c
    .list()
    .map((o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name))
    .sort();
}

/** A Promise whose settlement the test controls. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
  fail(e: unknown): void;
}

export function gate(): Gate {
  let open!: () => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

/** Lets every queued microtask (and Promise continuation) run. */
export async function drainMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/** Applies events to a Map the way a consumer would; throws on an event that contradicts the map. */
export function applyEvents<T>(into: Map<string, T>, events: readonly Event<T>[], keyFn: (o: T) => string): void {
  for (const e of events) {
    if (e.type === 'add') {
      const k = keyFn(e.new as T);
      if (into.has(k)) throw new Error(`add of ${k}, which is present`);
      into.set(k, e.new as T);
    } else if (e.type === 'update') {
      const k = keyFn(e.new as T);
      if (keyFn(e.old as T) !== k) throw new Error(`update changes the key ${keyFn(e.old as T)} -> ${k}`);
      if (!into.has(k)) throw new Error(`update of ${k}, which is absent`);
      into.set(k, e.new as T);
    } else {
      const k = keyFn(e.old as T);
      if (!into.has(k)) throw new Error(`delete of ${k}, which is absent`);
      into.delete(k);
    }
  }
}

/** Awaits a registration's sync, failing the test if it cannot happen. */
export async function synced(r: Registration | Collection<unknown>): Promise<void> {
  if (!(await r.waitUntilSynced())) throw new Error('waitUntilSynced returned false');
}

/** White-box: how many dependents and handlers a collection has (leak checks). */
export function subscribers(c: Collection<unknown> | { asCollection(): Collection<unknown> }): number {
  const col = 'asCollection' in c ? c.asCollection() : c;
  return internal(col).subscriberCount();
}

/** The message of a log call, made as `(message)` or `(fields, message)`. */
export function messageOf(a: object | string, b?: string): string {
  return typeof a === 'string' ? a : (b ?? '');
}

/**
 * Routes rxkrt's log to an array for the duration of a test (call in beforeEach; restore in afterEach),
 * so expected errors neither clutter the output nor go unchecked.
 */
export function captureLog(): { readonly lines: string[]; restore(): void } {
  const lines: string[] = [];
  setLogger({
    warn: (a, b?: string) => void lines.push(`warn: ${messageOf(a, b)}`),
    error: (a, b?: string) => void lines.push(`error: ${messageOf(a, b)}`),
  });
  return { lines, restore: () => setLogger() };
}

/** Consumes a tracker's events and returns its batches, each sorted (order within a batch is unspecified). */
export function sortedBatches(t: { take(): string[]; takeBatches(): string[] }): string[] {
  t.take();
  return t.takeBatches().map((b) => b.split(',').sort().join(','));
}
