// B4: end to end through the embedded API server: pods created over HTTP, watched by newInformer, derived, handled.
//
// client-node's informer lists through the same path as rxkrt's (raw JSON in pages of 500, `listAll`), not
// through its typed `listNamespacedPod`, so that both pay for the same deserialization. Each run closes its
// own watcher before the next variant runs, and every watcher's objects (name and app label) are compared
// with client-node's after every run.
import { CoreV1Api, makeInformer, type KubeConfig, type KubernetesListObject, type V1Pod } from '@kubernetes/client-node';
import { newCollection, type Collection } from '../src/index.js';
import { newInformer } from '../src/kube/index.js';
import { listAll } from '../src/kube/listAll.js';
import { canonicalSet } from './canonical.js';
import { startApiServer, type ApiServer } from '../src/apiserver/index.js';
import { compare, median, type BenchOptions, type Row, type Scenario, type Variant } from './harness.js';
import { Countdown } from './fixtures.js';

/** Creates in flight at once (a controller's client would pipeline similarly). */
const CONCURRENCY = 32;

export interface Env {
  server: ApiServer;
  kc: KubeConfig;
  core: CoreV1Api;
  /** Namespaces the write runs filled with N pods each (read back by the list runs). */
  filled: string[];
}

function pod(ns: string, i: number): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: ns, labels: { app: `app-${i % 25}` } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

export async function createPods(env: Env, ns: string, n: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      await env.core.createNamespacedPod({ namespace: ns, body: pod(ns, i) });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export interface RunCtx {
  env: Env;
  ns: string;
  seen: Countdown;
  stop: (() => void | Promise<void>) | undefined;
  /** The watcher's objects as `{ name, app }`, for the output check. */
  held: (() => Iterable<{ name: string; app: string }>) | undefined;
  /** Per run: ms from the last create's response to the last event (how far the watcher lags the writes). */
  tails: number[];
}

/** A variant: `watch` starts a watcher on the fresh namespace (untimed, until synced) and counts what arrives. */
function variant(
  name: string,
  n: number,
  warmup: number,
  env: () => Env,
  watch: ((c: RunCtx) => Promise<void>) | undefined,
  baseline = false,
): Variant<RunCtx> {
  return {
    name,
    baseline,
    ops: n,
    setup: () => ({ env: env(), ns: '', seen: new Countdown(), stop: undefined, held: undefined, tails: [] }),
    prepare: async (c, run) => {
      c.ns = `b4-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${run}`.replace(/-+$/, '');
      await c.env.core.createNamespace({ body: { metadata: { name: c.ns } } });
      c.seen = new Countdown();
      if (watch !== undefined) await watch(c);
    },
    run: async (c, run) => {
      await createPods(c.env, c.ns, n);
      const written = process.hrtime.bigint();
      if (watch !== undefined) await c.seen.until(n);
      if (run >= warmup) c.tails.push(Number(process.hrtime.bigint() - written) / 1e6);
    },
    verify: (c) => {
      if (watch !== undefined && c.seen.count !== n) throw new Error(`${name}: saw ${c.seen.count} of ${n} pods`);
      c.env.filled.push(c.ns);
    },
    ...(watch === undefined ? {} : { outputs: heldOutputs }),
    after: closeWatcher,
    extra: (c): Record<string, number> => (watch === undefined ? {} : { tail_ms_median: Math.round(median(c.tails) * 10) / 10 }),
    teardown: closeWatcher,
  };
}

/** What the watcher holds (nothing before its first run), canonical. */
function heldOutputs(c: RunCtx): string {
  return canonicalSet(c.held?.() ?? []);
}

async function closeWatcher(c: RunCtx): Promise<void> {
  await c.stop?.();
  c.stop = undefined;
  c.held = undefined;
}

/** rxkrt: newInformer → newCollection (one derived object per pod) → a handler counting adds. */
export const watchRxkrt = rxkrtWatcher(true);

/** rxkrt's informer alone, the handler on the informer (`bench:probe b4-list` tells the two apart). */
export const watchRxkrtInformer = rxkrtWatcher(false);

function rxkrtWatcher(derive: boolean): (c: RunCtx) => Promise<void> {
  return async (c) => {
    await c.stop?.();
    const abort = new AbortController();
    const pods = newInformer<V1Pod>(c.env.kc, { apiVersion: 'v1', kind: 'Pod', namespace: c.ns }, { stop: abort.signal });
    const derived: Collection<{ metadata: { name: string; namespace: string }; app: string }> | undefined = derive
      ? newCollection(
          pods,
          (_ctx, p) => ({
            metadata: { name: p.metadata!.name!, namespace: p.metadata!.namespace! },
            app: p.metadata?.labels?.['app'] ?? '',
          }),
          { stop: abort.signal },
        )
      : undefined;
    const counted: Collection<unknown> = derived ?? pods;
    const seen = c.seen;
    counted.registerBatch((b) => {
      let adds = 0;
      for (const e of b) if (e.type === 'add') adds++;
      seen.hit(adds);
    });
    if (!(await counted.waitUntilSynced())) throw new Error('rxkrt informer did not sync');
    c.stop = () => abort.abort();
    c.held = () =>
      derived !== undefined
        ? derived.list().map((w) => ({ name: w.metadata.name, app: w.app }))
        : pods.list().map((p) => ({ name: p.metadata?.name ?? '', app: p.metadata?.labels?.['app'] ?? '' }));
  };
}

/**
 * client-node's own informer (ListWatch) on the same namespace, counting `add` callbacks. Its list function
 * is rxkrt's LIST (`listAll`: raw JSON, pages of 500), not `listNamespacedPod`, whose typed deserializer
 * would make the comparison one of deserializers.
 */
export async function watchClientNode(c: RunCtx): Promise<void> {
  await c.stop?.();
  const path = `/api/v1/namespaces/${c.ns}/pods`;
  const kc = c.env.kc;
  const list = async (): Promise<KubernetesListObject<V1Pod>> => {
    const r = await listAll(kc, path, { query: {}, pageSize: 500, maxPages: 10_000 });
    return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: r.resourceVersion }, items: r.items as V1Pod[] };
  };
  const informer = makeInformer<V1Pod>(kc, path, list);
  const seen = c.seen;
  informer.on('add', () => seen.hit());
  informer.on('error', () => {});
  await informer.start();
  c.stop = () => informer.stop();
  c.held = () => informer.list().map((p) => ({ name: p.metadata?.name ?? '', app: p.metadata?.labels?.['app'] ?? '' }));
}

/** Initial sync of a namespace that already holds N pods: LIST (pages of 500) until every object has been handed on. */
function listVariant(name: string, n: number, env: () => Env, watch: (c: RunCtx) => Promise<void>, baseline = false): Variant<RunCtx> {
  return {
    name,
    baseline,
    ops: n,
    setup: () => ({ env: env(), ns: '', seen: new Countdown(), stop: undefined, held: undefined, tails: [] }),
    prepare: async (c, run) => {
      c.ns = c.env.filled[run % c.env.filled.length]!;
      c.seen = new Countdown();
    },
    run: async (c) => {
      await watch(c);
      await c.seen.until(n);
    },
    verify: (c) => {
      if (c.seen.count !== n) throw new Error(`${name}: listed ${c.seen.count} of ${n} pods`);
    },
    outputs: heldOutputs,
    after: closeWatcher,
    teardown: closeWatcher,
  };
}

export const b4: Scenario = {
  id: 'B4',
  title: 'end to end through the embedded API server: N pods created (watch) or already there (list), derived (events/s)',
  async run(opts: BenchOptions): Promise<Row[]> {
    const n = opts.quick ? 100 : 3000;
    const server = await startApiServer({ historySize: 100_000 });
    const kc = server.kubeConfig();
    const env: Env = { server, kc, core: kc.makeApiClient(CoreV1Api), filled: [] };
    try {
      const rows = await compare(
        `B4 ${n} pods: first create → last event`,
        [
          variant('client-node makeInformer', n, opts.warmup, () => env, watchClientNode, true),
          variant('rxkrt newInformer → newCollection', n, opts.warmup, () => env, watchRxkrt),
          variant('writes only (no watcher)', n, opts.warmup, () => env, undefined),
        ],
        // Creates through client-node cost milliseconds each: the minimum number of runs.
        { warmup: opts.warmup, runs: Math.min(opts.runs, 5) },
      );
      const listed = await compare(
        `B4 ${n} existing pods: start → synced, every object handed on`,
        [
          listVariant('client-node makeInformer', n, () => env, watchClientNode, true),
          listVariant('rxkrt newInformer → newCollection', n, () => env, watchRxkrt),
        ],
        { warmup: opts.warmup, runs: opts.runs },
      );
      for (const r of [...rows, ...listed]) r.extra = { ...r.extra, events_per_s: Math.round((n * 1000) / r.median_ms) };
      return [...rows, ...listed];
    } finally {
      await server.close();
    }
  },
};

/**
 * B4's variants for `bench:pairs` (`kind` list or watch, client-node's first): the API server starts with
 * the first set-up and stays up until the process ends; for the list, it starts with one namespace of `n` pods.
 */
export function b4PairVariants(kind: 'list' | 'watch', n: number, warmup: number): Variant<RunCtx>[] {
  let env: Env | undefined;
  let opening: Promise<Env> | undefined;
  const open = async (): Promise<Env> => {
    const server = await startApiServer({ historySize: 100_000 });
    const kc = server.kubeConfig();
    const e: Env = { server, kc, core: kc.makeApiClient(CoreV1Api), filled: [] };
    if (kind === 'list') {
      await e.core.createNamespace({ body: { metadata: { name: 'b4-listed' } } });
      await createPods(e, 'b4-listed', n);
      e.filled.push('b4-listed');
    }
    return (env = e);
  };
  const get = (): Env => env!;
  const inner =
    kind === 'list'
      ? [
          listVariant('client-node makeInformer', n, get, watchClientNode, true),
          listVariant('rxkrt newInformer → newCollection', n, get, watchRxkrt),
        ]
      : [
          variant('client-node makeInformer', n, warmup, get, watchClientNode, true),
          variant('rxkrt newInformer → newCollection', n, warmup, get, watchRxkrt),
        ];
  return inner.map((v) => ({
    ...v,
    setup: async () => {
      await (opening ??= open());
      return v.setup();
    },
  }));
}
