// Helpers for tests against the embedded API server: waiting, server bookkeeping, state replicas, server truth.
import { createServer } from 'node:net';
import { ApiextensionsV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { keyOf, type Collection, type Event, type TransformError } from '../../src/index.js';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../src/apiserver/index.js';

/**
 * Polls until `cond` holds (waiting, not a timing assertion: the deadline is generous and only turns a
 * hang into a readable failure). `what` may be a function, to describe the state at the deadline.
 */
export async function until(cond: () => boolean | Promise<boolean>, what: string | (() => string), ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resolves after `ms` (to let something that must NOT happen have its chance). */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Servers and informer stops of one test, released by `release()` in afterEach. */
export class Harness {
  private readonly servers: ApiServer[] = [];
  private readonly stops: AbortController[] = [];

  async server(opts?: ApiServerOptions): Promise<ApiServer> {
    const s = await startApiServer(opts);
    this.servers.push(s);
    return s;
  }

  /** A fresh stop signal, aborted at release. */
  stop(): AbortSignal {
    const c = new AbortController();
    this.stops.push(c);
    return c.signal;
  }

  async release(): Promise<void> {
    for (const s of this.stops.splice(0)) s.abort();
    await Promise.all(this.servers.splice(0).map((s) => s.close()));
  }
}

/** A client-node KubeConfig for any URL (e.g. a port nobody listens on). */
export function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u', namespace: 'default' }],
    currentContext: 'ctx',
  });
  return kc;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** `key → resourceVersion`, the identity of a set of object versions. */
export function versions(objs: readonly KubernetesObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of objs) out[keyOf(o)] = o.metadata?.resourceVersion ?? '?';
  return out;
}

/** What the server holds (LIST through client-node's generic object API), as `key → resourceVersion`. */
export async function serverVersions(
  kc: KubeConfig,
  apiVersion: string,
  kind: string,
  opts: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
): Promise<Record<string, string>> {
  const list = await KubernetesObjectApi.makeApiClient(kc).list(
    apiVersion,
    kind,
    opts.namespace,
    undefined,
    undefined,
    undefined,
    opts.fieldSelector,
    opts.labelSelector,
  );
  return versions(list.items);
}

/** Registers a namespaced CRD `plural.group` serving `kind` at `group/v1`, with a status subresource. */
export async function installCrd(kc: KubeConfig, group: string, kind: string, plural: string): Promise<void> {
  await kc.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          },
        ],
      },
    },
  });
}

/**
 * Rebuilds a collection's state from the batches it delivers, the way a consumer would, and records
 * every event that contradicts what came before: an add for a key already present, an update or delete
 * for a key absent, an update or delete whose `old` is not the version last delivered, an update whose
 * resourceVersion did not change.
 */
export class Replica<T extends KubernetesObject> {
  readonly state = new Map<string, T>();
  readonly violations: string[] = [];
  readonly batches: Array<readonly Event<T>[]> = [];
  readonly errors: TransformError[] = [];
  readonly registration;
  private readonly errorSub;

  constructor(readonly collection: Collection<T>) {
    this.registration = collection.registerBatch((batch) => this.apply(batch));
    this.errorSub = collection.errors$.subscribe((e) => this.errors.push(e));
  }

  private apply(batch: readonly Event<T>[]): void {
    this.batches.push(batch);
    for (const e of batch) {
      const obj = (e.new ?? e.old) as T;
      const key = keyOf(obj);
      const cur = this.state.get(key);
      const rv = (o: T | undefined): string | undefined => o?.metadata?.resourceVersion;
      if (e.type === 'add') {
        if (cur !== undefined) this.violations.push(`add ${key}: already present at rv ${rv(cur)}`);
        this.state.set(key, e.new as T);
      } else if (e.type === 'update') {
        if (cur === undefined) this.violations.push(`update ${key}: absent`);
        else if (rv(cur) !== rv(e.old)) this.violations.push(`update ${key}: old rv ${rv(e.old)} but last delivered rv ${rv(cur)}`);
        if (rv(e.old) === rv(e.new)) this.violations.push(`update ${key}: resourceVersion unchanged (${rv(e.new)})`);
        this.state.set(key, e.new as T);
      } else {
        if (cur === undefined) this.violations.push(`delete ${key}: absent`);
        else if (rv(cur) !== rv(e.old)) this.violations.push(`delete ${key}: old rv ${rv(e.old)} but last delivered rv ${rv(cur)}`);
        this.state.delete(key);
      }
    }
  }

  versions(): Record<string, string> {
    return versions([...this.state.values()]);
  }

  events(): Array<Event<T>> {
    return this.batches.flat();
  }

  close(): void {
    this.registration.unregister();
    this.errorSub.unsubscribe();
  }
}

/**
 * Waits until the collection, the replica and the server agree (key → resourceVersion), then checks
 * that no event ever contradicted the replica.
 */
export async function expectConverged<T extends KubernetesObject>(
  replica: Replica<T>,
  truth: () => Promise<Record<string, string>>,
  what: string,
  ms = 12_000,
): Promise<Record<string, string>> {
  let server: Record<string, string> = {};
  await until(
    async () => {
      server = await truth();
      return same(server, versions(replica.collection.list())) && same(server, replica.versions());
    },
    () => `${what}: server ${JSON.stringify(server)} vs collection ${JSON.stringify(versions(replica.collection.list()))}`,
    ms,
  );
  if (replica.violations.length > 0) throw new Error(`${what}: inconsistent events: ${replica.violations.slice(0, 10).join('; ')}`);
  return server;
}

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * A scheduler that records the delays asked of it and runs the work after `runAfterMs` instead. Delays of
 * `passThroughFromMs` or more (request timeouts, watch-health timers) are neither recorded nor shortened: they
 * keep their real length, so they stay out of the way of the backoff waits the tests look at.
 */
export function recordingScheduler(runAfterMs = 0, passThroughFromMs = 10_000): { scheduler: SchedulerLike; delays: number[] } {
  const delays: number[] = [];
  const scheduler: SchedulerLike = {
    now: () => asyncScheduler.now(),
    schedule(work: never, delay?: number, state?: never) {
      if ((delay ?? 0) >= passThroughFromMs) return asyncScheduler.schedule(work, delay, state);
      delays.push(delay ?? 0);
      return asyncScheduler.schedule(work, runAfterMs, state);
    },
  } as SchedulerLike;
  return { scheduler, delays };
}

/** Requests whose path matches, from the server's request log. */
export function requestsTo(server: ApiServer, method: string, pathIncludes: string | RegExp): string[] {
  return server.requests
    .filter((r) => r.method === method && (typeof pathIncludes === 'string' ? r.path.includes(pathIncludes) : pathIncludes.test(r.path)))
    .map((r) => r.path);
}

/** Matches watch requests (optionally on a path fragment). */
export const isWatch =
  (fragment = '') =>
  (method: string, path: string): boolean =>
    method === 'GET' && path.includes('watch=') && path.includes(fragment);

/** Matches an informer's LIST requests (they always carry `limit=`) on a path fragment. */
export const isList =
  (fragment = '') =>
  (method: string, path: string): boolean =>
    method === 'GET' && !path.includes('watch=') && /[?&]limit=/.test(path) && path.includes(fragment);

/**
 * Cuts every watch and holds the next `held` reconnections matching `match` at the server for 40 ms, while
 * whatever the test does next lands; then compacts the history, so that a reconnection from before that
 * gets 410 and its informer must relist (and find by the difference what it missed, deletes included).
 */
export function cutHoldAndCompact(server: ApiServer, held: number, match: (method: string, path: string) => boolean): void {
  server.delayNext(held, 40, { match });
  server.dropWatches();
  setTimeout(() => server.compact(), 20);
}
