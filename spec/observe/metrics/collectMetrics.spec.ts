import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { Registry } from 'prom-client';
import { CustomObjectsApi, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { batch, newCollection, newStaticCollection, newStatusCollection, setLogger, type Collection } from '../../../src/index.js';
import { newInformer, newStatusWriter, type StatusWriter } from '../../../src/kube/index.js';
import { collectMetrics } from '../../../src/observe/index.js';
import { Harness, installCrd, until } from '../../helpers/kube.js';
import { parseScrape, valueOf, type ScrapedSample } from '../../helpers/prometheus.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;

describe('collectMetrics', () => {
  const unregister: Array<() => void> = [];
  const stops: AbortController[] = [];
  const h = new Harness();
  afterEach(async () => {
    for (const u of unregister.splice(0)) u();
    for (const s of stops.splice(0)) s.abort();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  function stop(): AbortSignal {
    const c = new AbortController();
    stops.push(c);
    return c.signal;
  }

  function registryWithMetrics(): Registry {
    const registry = new Registry();
    unregister.push(collectMetrics(registry));
    return registry;
  }

  async function scrape(registry: Registry): Promise<ScrapedSample[]> {
    return parseScrape(await registry.metrics());
  }

  it('should report objects, events by type, recomputations, errors and sync of every live collection', async () => {
    const registry = registryWithMetrics();
    const items = newStaticCollection<Item>([], { name: 'Items', key: byName, stop: stop() });
    const doubled = newCollection(
      items,
      (_ctx, i) => {
        if (i.n < 0) throw new Error(`negative ${i.n}`);
        return { name: i.name, n: i.n * 2 };
      },
      { name: 'Doubled', key: byName, stop: stop() },
    );
    batch(() => {
      items.updateObject({ name: 'a', n: 1 });
      items.updateObject({ name: 'b', n: 2 });
    });
    items.updateObject({ name: 'a', n: 3 });
    items.deleteObject('b');
    items.updateObject({ name: 'c', n: -1 });

    const s = await scrape(registry);
    expect(valueOf(s, 'rxkrt_collection_objects', { collection: 'Items' })).toBe(2);
    expect(valueOf(s, 'rxkrt_collection_objects', { collection: 'Doubled' })).toBe(doubled.list().length);
    expect(valueOf(s, 'rxkrt_collection_events_total', { collection: 'Items', type: 'add' })).toBe(3);
    expect(valueOf(s, 'rxkrt_collection_events_total', { collection: 'Items', type: 'update' })).toBe(1);
    expect(valueOf(s, 'rxkrt_collection_events_total', { collection: 'Items', type: 'delete' })).toBe(1);
    expect(valueOf(s, 'rxkrt_collection_events_total', { collection: 'Doubled', type: 'add' })).toBe(2);
    expect(valueOf(s, 'rxkrt_collection_recomputations_total', { collection: 'Doubled' })).toBe(4);
    expect(valueOf(s, 'rxkrt_collection_transform_errors_total', { collection: 'Doubled' })).toBe(1);
    expect(valueOf(s, 'rxkrt_collection_synced', { collection: 'Doubled' })).toBe(1);
  });

  it('should count every transaction and time one in 16 into a histogram', async () => {
    const registry = registryWithMetrics();
    const items = newStaticCollection<Item>([], { name: 'Counted', key: byName, stop: stop() });
    const before = await scrape(registry);
    for (let i = 0; i < 64; i++) items.updateObject({ name: 'a', n: i });
    const after = await scrape(registry);
    const delta = (name: string): number => valueOf(after, name)! - (valueOf(before, name) ?? 0);
    expect(delta('rxkrt_transactions_total')).toBe(64);
    expect(delta('rxkrt_transaction_duration_seconds_count')).toBe(4);
    expect(valueOf(after, 'rxkrt_transaction_duration_seconds_bucket', { le: '+Inf' })).toBe(
      valueOf(after, 'rxkrt_transaction_duration_seconds_count'),
    );
    expect(valueOf(after, 'rxkrt_transaction_duration_seconds_sum')).toBeGreaterThan(0);
  });

  it('should drop a collection from the output once it is stopped', async () => {
    const registry = registryWithMetrics();
    const gone = new AbortController();
    newStaticCollection<Item>([{ name: 'x', n: 1 }], { name: 'Ephemeral', key: byName, stop: gone.signal });
    expect(valueOf(await scrape(registry), 'rxkrt_collection_objects', { collection: 'Ephemeral' })).toBe(1);
    gone.abort();
    expect(valueOf(await scrape(registry), 'rxkrt_collection_objects', { collection: 'Ephemeral' })).toBeUndefined();
  });

  it('should sum collections that share a name into one series', async () => {
    const registry = registryWithMetrics();
    newStaticCollection<Item>([{ name: 'x', n: 1 }], { name: 'Twin', key: byName, stop: stop() });
    newStaticCollection<Item>(
      [
        { name: 'y', n: 1 },
        { name: 'z', n: 1 },
      ],
      { name: 'Twin', key: byName, stop: stop() },
    );
    expect(valueOf(await scrape(registry), 'rxkrt_collection_objects', { collection: 'Twin' })).toBe(3);
  });

  it('should show batches queued behind a handler whose Promise has not settled', async () => {
    const registry = registryWithMetrics();
    const items = newStaticCollection<Item>([], { name: 'Slow', key: byName, stop: stop() });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    items.registerBatch(() => held);
    items.updateObject({ name: 'a', n: 1 });
    items.updateObject({ name: 'b', n: 1 });
    items.updateObject({ name: 'c', n: 1 });
    expect(valueOf(await scrape(registry), 'rxkrt_handler_queue_depth', { collection: 'Slow' })).toBe(2);
    release();
    await until(
      async () => valueOf(await scrape(registry), 'rxkrt_handler_queue_depth', { collection: 'Slow' }) === 0,
      'the queue to drain',
    );
  });

  it('should sample transform durations into a per-collection histogram', async () => {
    const registry = registryWithMetrics();
    const items = newStaticCollection<Item>([], { name: 'Many', key: byName, stop: stop() });
    newCollection(items, (_ctx, i) => i, { name: 'Copied', key: byName, stop: stop() });
    batch(() => {
      for (let i = 0; i < 64; i++) items.updateObject({ name: `k${i}`, n: i });
    });
    const s = await scrape(registry);
    expect(valueOf(s, 'rxkrt_transform_duration_seconds_count', { collection: 'Copied' })).toBe(4);
  });

  it('should stop counting and leave the registry when unregistered, and refuse a registry that has them', () => {
    const registry = new Registry();
    const off = collectMetrics(registry);
    expect(() => collectMetrics(registry)).toThrow(/already been registered/);
    expect(registry.getSingleMetric('rxkrt_collection_objects')).toBeDefined();
    off();
    off();
    expect(registry.getMetricsAsArray()).toHaveLength(0);
    expect(() => collectMetrics(registry)()).not.toThrow();
  });

  it('should report informers and status writers against a real API server', async () => {
    const registry = registryWithMetrics();
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, 'example.com', 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    const create = (name: string, size: number) =>
      api.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name }, spec: { size } },
      });
    await create('g1', 1);
    await create('g2', 2);
    interface Gadget extends KubernetesObject {
      spec: { size: number };
      status?: { size: number };
    }
    const signal = h.stop();
    const gadgets: Collection<Gadget> = newInformer<Gadget>(kc, { apiVersion: 'example.com/v1', kind: 'Gadget' }, { stop: signal });
    const configMaps = newInformer<V1ConfigMap>(kc, { apiVersion: 'v1', kind: 'ConfigMap' }, { stop: signal });
    const [statuses] = newStatusCollection<Gadget, { size: number }, never>(gadgets, (_ctx, g) => ({ status: { size: g.spec.size } }), {
      name: 'GadgetStatus',
      stop: signal,
    });
    const writer: StatusWriter = newStatusWriter(kc, statuses, { stop: signal });
    await gadgets.waitUntilSynced();
    await configMaps.waitUntilSynced();
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );

    const s = await scrape(registry);
    expect(valueOf(s, 'rxkrt_informer_lists_total', { resource: 'example.com/v1/Gadget' })).toBe(1);
    expect(valueOf(s, 'rxkrt_informer_relists_total', { resource: 'example.com/v1/Gadget' })).toBe(0);
    expect(valueOf(s, 'rxkrt_informer_events_total', { resource: 'example.com/v1/Gadget', type: 'add' })).toBe(2);
    expect(valueOf(s, 'rxkrt_informer_lists_total', { resource: 'v1/ConfigMap' })).toBe(1);
    expect(valueOf(s, 'rxkrt_informer_errors_total', { resource: 'v1/ConfigMap' })).toBe(0);
    expect(valueOf(s, 'rxkrt_status_writes_total', { collection: 'GadgetStatus/status', result: 'written' })).toBe(2);
    expect(valueOf(s, 'rxkrt_status_queue_depth', { collection: 'GadgetStatus/status' })).toBe(0);
    expect(valueOf(s, 'rxkrt_collection_synced', { collection: 'GadgetStatus/status' })).toBe(1);

    writer.stop();
    const after = await scrape(registry);
    expect(valueOf(after, 'rxkrt_status_queue_depth', { collection: 'GadgetStatus/status' })).toBeUndefined();
  });
});
