// `bench:probe -- tx-loop | tx-cold | tx-layers`: what one-key transactions cost, warm (tx-loop), each after two
// scavenges and a 20 ms pause as bench:pairs settles them (tx-cold), and through rxkrt's graph built up a layer at
// a time (tx-layers). Each runs one contender, variant or layer; bench/probe.ts runs each in a process of its own.
import { newCollection, newNamespaceIndex, newStaticCollection } from '../src/index.js';
import { IpAllocator, krtPods, krtServices, withNewIp, type Pod, type Service } from './fixtures.js';
import { median } from './harness.js';
import { collect, pause } from './probeGc.js';
import { workloadOf } from './rxkrtWorkloads.js';
import { rxkrt, strongHand, type Contender } from './workloadContenders.js';

export function txLoop(c: Contender): void {
  const ips = new IpAllocator();
  let current: Pod[] = krtPods(1000, ips);
  const live = c.build(current, krtServices());
  const times: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const next = current.map((p) => withNewIp(p, ips));
    const t0 = performance.now();
    live.updateEach(next);
    if (i >= 500) times.push(performance.now() - t0);
    current = next;
  }
  live.stop();
  console.log(`${c.name}: ${median(times).toFixed(3)} ms per 1000 single-update transactions or drains`);
}

/** The graphs `tx-cold` measures. */
export const TX_COLD = ['hand-written (drain per update)', 'rxkrt, a transform that fetches nothing', "rxkrt, B1's Workloads"];

const NO_SERVICE_NAMES: readonly string[] = Object.freeze([]);

export async function txCold(variant: string): Promise<void> {
  const at = TX_COLD.indexOf(variant);
  if (at < 0) throw new Error(`tx-cold has no variant ${JSON.stringify(variant)} (variants: ${TX_COLD.join('; ')})`);
  const ips = new IpAllocator();
  let current: Pod[] = krtPods(1000, ips);
  let update: (next: readonly Pod[]) => void;
  let stop: () => void;
  if (at === 1) {
    const abort = new AbortController();
    const pods = newStaticCollection<Pod>(current, { name: 'Pods', stop: abort.signal });
    const workload = (_ctx: unknown, p: Pod) => ({
      metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
      ip: p.status.podIP,
      serviceNames: NO_SERVICE_NAMES,
    });
    newCollection(pods, workload, { name: 'Workloads', stop: abort.signal }).register(() => {});
    update = (next) => {
      for (const p of next) pods.updateObject(p);
    };
    stop = () => abort.abort();
  } else {
    const live = (at === 0 ? strongHand : rxkrt).build(current, krtServices());
    update = (next) => live.updateEach(next);
    stop = () => live.stop();
  }
  collect(1);
  const times: number[] = [];
  for (let i = 0; i < 70; i++) {
    const next = current.map((p) => withNewIp(p, ips));
    collect();
    await pause(20);
    const t0 = performance.now();
    update(next);
    if (i >= 10) times.push(performance.now() - t0);
    current = next;
  }
  stop();
  console.log(`${variant}: ${median(times).toFixed(3)} ms per 1000 one-key transactions or drains, each run after two scavenges`);
}

/** The graphs `tx-layers` measures, each a layer more than the one before. */
export const TX_LAYERS = ['source', 'source + handler', 'source → derived (no fetch) + handler', 'source → Workloads + handler'];

export function txLayers(layer: string): void {
  const ips = new IpAllocator();
  let current: Pod[] = krtPods(1000, ips);
  const abort = new AbortController();
  const pods = newStaticCollection<Pod>(current, { name: 'Pods', stop: abort.signal });
  const services = newStaticCollection<Service>(krtServices(), { name: 'Services', stop: abort.signal });
  let events = 0;
  const count = (): void => {
    events++;
  };
  const at = TX_LAYERS.indexOf(layer);
  if (at < 0) throw new Error(`tx-layers has no layer ${JSON.stringify(layer)} (layers: ${TX_LAYERS.join('; ')})`);
  if (at === 1) pods.register(count);
  if (at === 2)
    newCollection(pods, (_ctx, p) => ({ metadata: p.metadata, ip: p.status.podIP }), { name: 'W', stop: abort.signal }).register(count);
  if (at === 3) newCollection(pods, workloadOf(newNamespaceIndex(services)), { name: 'Workloads', stop: abort.signal }).register(count);
  const times: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const next = current.map((p) => withNewIp(p, ips));
    const t0 = performance.now();
    for (const p of next) pods.updateObject(p);
    if (i >= 500) times.push(performance.now() - t0);
    current = next;
  }
  abort.abort();
  // The 1000 adds a handler is replayed, then one event per update: else the layers measured different work.
  if (at > 0 && events !== 3001 * 1000) throw new Error(`${layer}: ${events} events, not ${3001 * 1000}`);
  console.log(`${layer}: ${median(times).toFixed(3)} ms per 1000 one-key transactions`);
}
