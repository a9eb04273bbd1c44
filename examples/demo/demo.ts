// The main job: the workload registry on informers, against the embedded API server (or a real cluster), under churn.
import { KubeConfig } from '@kubernetes/client-node';
import { collectionStats, equals, type Collection } from 'rxkrt';
import { informerStats, type StatusWriter } from 'rxkrt/kube';
import { startApiServer, type ApiServer } from 'rxkrt/apiserver';
import { startDebugServer, type DebugServer } from 'rxkrt/observe';
import type { Registry } from '../workload-registry/registry.js';
import { registryFromScratch } from '../workload-registry/fromScratch.js';
import type { AccessPolicy } from '../workload-registry/types.js';
import { churnOnce, clientsFor, mulberry32, seedCluster, type ClusterShape } from './cluster.js';
import { LatencyRecorder } from './latency.js';
import { doubleWritesOf, kill, sharesOf, startReplica, startWriter, writesByReplica, type Replica } from './replicas.js';

export interface DemoOptions {
  /** Seconds of churn (embedded server) or observation (real cluster). */
  duration: number;
  /** A kubeconfig file: run against that cluster instead of the embedded server. */
  kubeconfig?: string;
  /** Against a real cluster, write policy status (off by default: read-only). */
  writeStatus: boolean;
  shape: ClusterShape;
  seed: number;
  /** Churn operations started per second (embedded server only). */
  rate: number;
  /** Serve metrics, health and the graph page on this port (0: a free one); absent: no debug server. */
  debugPort?: number;
  /** Ends the run early (Ctrl-C): the demo stops churning, settles briefly and returns its summary. */
  interrupt?: AbortSignal;
  /** Replicas of the controller against the one server (embedded only), sharded when more than one. Default 1. */
  replicas?: number;
  /** Kills (as a crash would) the replica holding the most keys this many seconds into the churn. */
  killOneAt?: number;
}

export interface DemoSummary {
  target: string;
  durationSeconds: number;
  /** The run was cut short by `interrupt`. */
  interrupted: boolean;
  churnOps: number;
  /** Watch events the informers applied. */
  eventsProcessed: number;
  recomputations: number;
  statusWrites: number;
  statusSkipped: number;
  latencySamples: number;
  p50Ms: number;
  p99Ms: number;
  workloads: number;
  services: number;
  policies: number;
  errors: number;
  /** The final outputs equal a from-scratch computation over the server's final state. */
  consistent: boolean;
  mismatch?: string;
  /** Replicas run. */
  replicas: number;
  /** Successful status writes per replica (from the server's request record on the embedded server). */
  writesByReplica: Record<string, number>;
  /** Policy keys each replica owned at the end (0 for a killed one). */
  sharesByReplica: Record<string, number>;
  /** With a kill: from the kill until every key the killed replica owned was owned by a live one. */
  failoverMs: number | null;
  /** Status writes that arrived while another replica owned the key (from the server's request record). */
  doubleWrites: number;
}

/** Where progress goes: a TTY gets a redrawn block, anything else plain lines. */
export interface DemoOutput {
  progress(lines: string[]): void;
  log(line: string): void;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Runs the demo and returns its summary; every resource it started is stopped before it returns. */
export async function runDemo(opts: DemoOptions, out: DemoOutput): Promise<DemoSummary> {
  const stop = new AbortController();
  let server: ApiServer | undefined;
  let writer: StatusWriter | undefined;
  const replicas: Replica[] = [];
  let debug: DebugServer | undefined;
  const interrupted = (): boolean => opts.interrupt?.aborted === true;
  try {
    if (opts.debugPort !== undefined) {
      debug = await startDebugServer({ port: opts.debugPort });
      out.log(`debug server on ${debug.url}: ${debug.url}/debug/graph, /metrics, /readyz, /debug/krtz`);
    }
    let kc: KubeConfig;
    if (opts.kubeconfig !== undefined) {
      kc = new KubeConfig();
      kc.loadFromFile(opts.kubeconfig);
      out.log(
        `using cluster ${kc.getCurrentCluster()?.server ?? '(none)'} from ${opts.kubeconfig} (${opts.writeStatus ? 'writing policy status' : 'read-only'})`,
      );
    } else {
      // With replicas, the request record is how double writes are counted: keep all of it.
      server = await startApiServer((opts.replicas ?? 1) > 1 ? { requestLogLimit: 2_000_000 } : {});
      kc = server.kubeConfig();
      out.log(
        `embedded API server on ${server.url}; seeding ${opts.shape.namespaces} namespaces, ${opts.shape.pods} pods, ${opts.shape.services} services, ${opts.shape.policies} policies`,
      );
      await seedCluster(clientsFor(kc), opts.shape, mulberry32(opts.seed));
    }

    const replicaCount = opts.replicas ?? 1;
    for (let i = 0; i < replicaCount; i++) {
      replicas.push(startReplica(server?.kubeConfig({ as: `replica-${i}` }) ?? kc, `replica-${i}`, replicaCount > 1, stop.signal));
    }
    if (replicaCount > 1) out.log(`${replicaCount} replicas, sharded over Leases (group rxkrt-demo)`);
    // The replica whose state the progress and the final check read: the first one still alive.
    const primary = (): Replica => replicas.find((r) => r.killedAt === undefined) ?? replicas[0]!;
    const { registry, sources } = replicas[0]!;
    const derivedOf = (r: Replica) => [r.registry.workloads, r.registry.serviceEndpoints, r.registry.policyStatus] as Collection<unknown>[];
    let errors = 0;
    for (const r of replicas) for (const c of [...r.sources, ...derivedOf(r)]) c.errors$.subscribe(() => errors++);

    const latency = new LatencyRecorder(() => performance.now());
    registry.workloads.registerBatch((batch) => {
      for (const e of batch) latency.observe(keyOfWorkload(e.new ?? e.old));
    }, false);

    const t0 = performance.now();
    for (const r of replicas) {
      await r.registry.workloads.waitUntilSynced(stop.signal);
      await r.registry.serviceEndpoints.waitUntilSynced(stop.signal);
      await r.registry.policyStatus.waitUntilSynced(stop.signal);
    }
    out.log(
      `synced in ${(performance.now() - t0).toFixed(0)} ms: ${registry.workloads.list().length} workloads, ${registry.serviceEndpoints.list().length} services, ${registry.policyStatus.list().length} policies`,
    );

    if (opts.kubeconfig === undefined || opts.writeStatus) {
      for (const r of replicas) startWriter(server?.kubeConfig({ as: r.name }) ?? kc, r);
      writer = replicas[0]!.writer;
    }

    const clients = clientsFor(kc);
    const rand = mulberry32(opts.seed + 1);
    const live = new Set(replicas[0]!.pods.list().map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
    const nextPod = { n: opts.shape.pods };
    let churnOps = 0;
    const churnStartedAt = performance.now();
    // Duration 0 runs until interrupted (with the debug server up, for a person to look at).
    const deadline = opts.duration === 0 ? Infinity : performance.now() + opts.duration * 1000;
    const draw = (): void =>
      out.progress([
        ...progressLines(primary().registry, primary().sources, primary().writer, churnOps, latency, errors, deadline),
        ...(replicaCount > 1 ? [`  keys per replica  ${JSON.stringify(sharesOf(replicas))}`] : []),
      ]);
    let lastDraw = 0;
    let failover: Promise<number | undefined> | undefined;
    while (performance.now() < deadline && !interrupted()) {
      if (
        server !== undefined &&
        opts.killOneAt !== undefined &&
        failover === undefined &&
        performance.now() - churnStartedAt >= opts.killOneAt * 1000
      ) {
        const shares = sharesOf(replicas);
        const victim = replicas.filter((r) => r.killedAt === undefined).sort((a, b) => shares[b.name]! - shares[a.name]!)[0]!;
        out.log(`killing ${victim.name} (holding ${shares[victim.name]} keys)`);
        failover = kill(server, victim, replicas, stop.signal);
        void failover.then((ms) => ms !== undefined && out.log(`failover: every key of ${victim.name} owned again after ${ms} ms`));
      }
      if (opts.kubeconfig === undefined) {
        // Churn in small concurrent bursts, as controllers see it: several writes land between two flushes.
        const burst: Array<Promise<void>> = [];
        for (let i = 0; i < 4; i++) {
          burst.push(
            (async () => {
              await churnOnce(clients, opts.shape, rand, live, nextPod, (podKey) => latency.start(podKey));
              churnOps++;
            })().catch((e: unknown) => {
              // Writes of one burst run concurrently: one may delete the pod another is about to patch.
              if ((e as { code?: unknown }).code === 404) return;
              out.log(`churn write failed: ${e instanceof Error ? e.message : String(e)}`);
            }),
          );
        }
        await Promise.all(burst);
        await sleep(Math.max(0, 4000 / opts.rate - 1), opts.interrupt);
      } else {
        await sleep(200, opts.interrupt);
      }
      if (performance.now() - lastDraw > 250) {
        draw();
        lastDraw = performance.now();
      }
    }
    draw();

    // Let the last watch events and status writes land, then compare with a from-scratch computation.
    // Interrupted, the check gets a short while, so that Ctrl-C ends the demo within seconds.
    const survivors = replicas.filter((r) => r.killedAt === undefined);
    const check = await settle(kc, primary().registry, survivors, opts.kubeconfig === undefined, interrupted() ? 2000 : 10_000);
    const failoverMs = failover === undefined ? null : ((await Promise.race([failover, Promise.resolve(undefined)])) ?? null);
    const stats = (c: Collection<unknown>) => collectionStats(c);
    const summary: DemoSummary = {
      target: server?.url ?? kc.getCurrentCluster()?.server ?? '',
      durationSeconds: opts.duration === 0 || interrupted() ? Math.round((performance.now() - churnStartedAt) / 100) / 10 : opts.duration,
      interrupted: interrupted(),
      churnOps,
      eventsProcessed: sources.reduce((n, s) => n + (informerStats(s)?.watchEvents ?? 0), 0),
      recomputations: derivedOf(replicas[0]!).reduce((n, d) => n + stats(d).recomputations, 0),
      statusWrites: replicas.reduce((n, r) => n + (r.writer?.stats.writes ?? 0), 0),
      statusSkipped: replicas.reduce((n, r) => n + (r.writer?.stats.skipped ?? 0), 0),
      latencySamples: latency.count,
      p50Ms: latency.percentile(50),
      p99Ms: latency.percentile(99),
      workloads: primary().registry.workloads.list().length,
      services: primary().registry.serviceEndpoints.list().length,
      policies: primary().registry.policyStatus.list().length,
      errors,
      consistent: check === undefined,
      ...(check !== undefined ? { mismatch: check } : {}),
      replicas: replicaCount,
      writesByReplica: server !== undefined ? writesByReplica(server, replicas) : { [replicas[0]!.name]: writer?.stats.writes ?? 0 },
      sharesByReplica: sharesOf(replicas),
      failoverMs,
      doubleWrites: server !== undefined ? doubleWritesOf(server, replicas) : 0,
    };
    return summary;
  } finally {
    for (const r of replicas) r.writer?.stop();
    stop.abort();
    await Promise.all([server?.close(), debug?.close()]);
  }
}

function keyOfWorkload(w: { metadata: { name: string; namespace: string } } | undefined): string {
  return w === undefined ? '' : `${w.metadata.namespace}/${w.metadata.name}`;
}

function progressLines(
  registry: Registry,
  sources: Collection<unknown>[],
  writer: StatusWriter | undefined,
  churnOps: number,
  latency: LatencyRecorder,
  errors: number,
  deadline: number,
): string[] {
  const left = deadline === Infinity ? 'running until Ctrl-C' : `${Math.max(0, (deadline - performance.now()) / 1000).toFixed(1)} s left`;
  const events = sources.reduce((n, s) => n + (informerStats(s)?.watchEvents ?? 0), 0);
  const fmt = (v: number): string => (Number.isNaN(v) ? '-' : v.toFixed(1));
  return [
    `rxkrt demo — ${left}`,
    `  churn writes      ${churnOps}`,
    `  watch events      ${events}`,
    `  workloads         ${registry.workloads.list().length}   (recomputed ${collectionStats(registry.workloads).recomputations}×)`,
    `  service endpoints ${registry.serviceEndpoints.list().length}   (recomputed ${collectionStats(registry.serviceEndpoints).recomputations}×)`,
    `  policy statuses   ${registry.policyStatus.list().length}   (writes ${writer?.stats.writes ?? 0}, skipped ${writer?.stats.skipped ?? 0}, conflicts ${writer?.stats.conflicts ?? 0})`,
    `  latency           p50 ${fmt(latency.percentile(50))} ms   p99 ${fmt(latency.percentile(99))} ms   (${latency.count} samples)`,
    `  errors            ${errors}`,
  ];
}

/**
 * Waits until the registry equals a from-scratch computation over the server's current state (returns
 * undefined), or gives up after a while and returns what still differs.
 */
async function settle(
  kc: KubeConfig,
  registry: Registry,
  replicas: readonly Replica[],
  statusMustLand: boolean,
  withinMs: number,
): Promise<string | undefined> {
  const clients = clientsFor(kc);
  let mismatch: string | undefined = 'not checked';
  const giveUpAt = performance.now() + withinMs;
  while (performance.now() < giveUpAt) {
    const waited = new AbortController();
    await Promise.race([
      Promise.all(replicas.map((r) => r.writer?.idle() ?? Promise.resolve())),
      sleep(Math.max(0, giveUpAt - performance.now()), waited.signal),
    ]);
    waited.abort();
    await sleep(50);
    const [ns, pods, svcs, pols] = await Promise.all([
      clients.core.listNamespace(),
      clients.core.listPodForAllNamespaces(),
      clients.core.listServiceForAllNamespaces(),
      clients.custom.listClusterCustomObject({ group: 'example.rxkrt.dev', version: 'v1', plural: 'accesspolicies' }),
    ]);
    const policies = (pols as { items: AccessPolicy[] }).items;
    // Typed client-node lists carry Dates; the comparison only reads names, labels, selectors and IPs.
    const expect = registryFromScratch(ns.items, pods.items, svcs.items, policies);
    mismatch = compare(registry, expect, statusMustLand ? policies : undefined);
    if (mismatch === undefined) return undefined;
  }
  return mismatch;
}

function compare(
  registry: Registry,
  expect: ReturnType<typeof registryFromScratch>,
  livePolicies: AccessPolicy[] | undefined,
): string | undefined {
  const byKey = <T extends { metadata: { name: string; namespace: string } }>(xs: T[]): Map<string, T> =>
    new Map(xs.map((x) => [`${x.metadata.namespace}/${x.metadata.name}`, x]));
  const sameSet = <T extends { metadata: { name: string; namespace: string } }>(what: string, got: T[], want: T[]): string | undefined => {
    const g = byKey(got);
    const w = byKey(want);
    if (g.size !== w.size) return `${what}: ${g.size} incrementally vs ${w.size} from scratch`;
    for (const [k, v] of w) if (!equals(g.get(k), v)) return `${what} ${k}: ${JSON.stringify(g.get(k))} vs ${JSON.stringify(v)}`;
    return undefined;
  };
  const a = sameSet('workload', registry.workloads.list(), expect.workloads);
  if (a !== undefined) return a;
  const b = sameSet('service endpoints', registry.serviceEndpoints.list(), expect.serviceEndpoints);
  if (b !== undefined) return b;
  const statuses = new Map(registry.policyStatus.list().map((s) => [`${s.obj.metadata?.namespace}/${s.obj.metadata?.name}`, s.status]));
  for (const want of expect.policyStatus) {
    if (!equals(statuses.get(want.key), want.status))
      return `policy status ${want.key}: ${JSON.stringify(statuses.get(want.key))} vs ${JSON.stringify(want.status)}`;
  }
  if (livePolicies !== undefined) {
    for (const p of livePolicies) {
      const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
      const want = expect.policyStatus.find((s) => s.key === key)?.status;
      if (!equals(p.status, want))
        return `policy ${key} on the server carries ${JSON.stringify(p.status)}, expected ${JSON.stringify(want)}`;
    }
  }
  return undefined;
}
