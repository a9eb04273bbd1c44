// collectMetrics: rxkrt's collections, informers and status writers as Prometheus series, read at scrape time.
import type { MetricsRegistry } from './metricsRegistry.js';
import { liveCollections, type LiveCollection } from '../../engine/liveCollections.js';
import { countEventTypesWhile } from '../../engine/counters.js';
import { DurationHistogram, TRANSACTION_BUCKETS } from '../../engine/durationHistogram.js';
import { observeTransactions, transactionCount } from '../../engine/transaction.js';
import { informerReadings, statusWriterReadings } from '../liveComponents.js';
import { MetricFamily, sumByLabels, type Sample } from './metricFamily.js';

/** Options of `collectMetrics`. */
export interface MetricsOptions {
  /** Prepended to every metric name. Default `rxkrt_`. */
  prefix?: string;
}

let transactionUsers = 0;
let transactions = new DurationHistogram(TRANSACTION_BUCKETS);

/** Times every transaction while some registry collects metrics; one histogram for the process. */
function timeTransactionsWhile(): () => void {
  if (transactionUsers++ === 0) {
    transactions = new DurationHistogram(TRANSACTION_BUCKETS);
    observeTransactions((s) => transactions.observe(s));
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--transactionUsers === 0) observeTransactions(undefined);
  };
}

function perCollection(read: (c: LiveCollection) => number): () => Sample[] {
  return () => sumByLabels(liveCollections().map((c) => ({ labels: { collection: c.name }, value: read(c) })));
}

/** The metric families, each reading the engine when scraped. */
function families(p: string): MetricFamily[] {
  return [
    new MetricFamily(
      `${p}collection_objects`,
      'Objects a collection holds.',
      'gauge',
      perCollection((c) => c.size),
    ),
    new MetricFamily(`${p}collection_events_total`, 'Events a collection committed, by type.', 'counter', () =>
      sumByLabels(
        liveCollections().flatMap((c) => [
          { labels: { collection: c.name, type: 'add' }, value: c.counters.adds },
          { labels: { collection: c.name, type: 'update' }, value: c.counters.updates },
          { labels: { collection: c.name, type: 'delete' }, value: c.counters.deletes },
        ]),
      ),
    ),
    new MetricFamily(
      `${p}collection_recomputations_total`,
      'Transform runs of a derived collection.',
      'counter',
      perCollection((c) => c.counters.recomputations),
    ),
    new MetricFamily(
      `${p}collection_transform_errors_total`,
      'Errors a collection reported on errors$ (transforms, keys, handlers).',
      'counter',
      perCollection((c) => c.counters.errors),
    ),
    new MetricFamily(
      `${p}collection_synced`,
      '1 once a collection has synced, else 0.',
      'gauge',
      perCollection((c) => (c.hasSynced() ? 1 : 0)),
    ),
    new MetricFamily(
      `${p}handler_queue_depth`,
      'Batches waiting for a collection’s handlers (behind a Promise still running).',
      'gauge',
      perCollection((c) => c.queuedHandlerBatches()),
    ),
    new MetricFamily(`${p}transform_duration_seconds`, 'Transform run time, one run in 16 sampled.', 'histogram', () =>
      liveCollections().flatMap(
        (c) => c.counters.transformSeconds?.samples(`${p}transform_duration_seconds`, { collection: c.name }) ?? [],
      ),
    ),
    new MetricFamily(
      `${p}transaction_duration_seconds`,
      'Time from commit to the last handler call of a transaction, one transaction in 16 timed.',
      'histogram',
      () => transactions.samples(`${p}transaction_duration_seconds`),
    ),
    new MetricFamily(`${p}transactions_total`, 'Transactions committed.', 'counter', () => [{ labels: {}, value: transactionCount() }]),
    ...informerFamilies(p),
    ...statusWriterFamilies(p),
  ];
}

function informerFamilies(p: string): MetricFamily[] {
  const each = (read: (i: ReturnType<typeof informerReadings>[number]) => number) => () =>
    sumByLabels(informerReadings().map((i) => ({ labels: { resource: i.resource }, value: read(i) })));
  return [
    new MetricFamily(
      `${p}informer_lists_total`,
      'LISTs an informer completed (the first and every relist).',
      'counter',
      each((i) => i.lists),
    ),
    new MetricFamily(
      `${p}informer_relists_total`,
      'LISTs after the first (a 410 Gone, an error, a refused state).',
      'counter',
      each((i) => i.relists),
    ),
    new MetricFamily(
      `${p}informer_watch_restarts_total`,
      'WATCH requests an informer opened after its first.',
      'counter',
      each((i) => Math.max(0, i.watches - 1)),
    ),
    new MetricFamily(`${p}informer_events_total`, 'Changes an informer delivered, by type, and bookmarks it read.', 'counter', () =>
      sumByLabels(
        informerReadings().flatMap((i) => {
          const c = i.collection.counters;
          const at = (type: string, value: number): Sample => ({ labels: { resource: i.resource, type }, value });
          return [at('add', c.adds), at('update', c.updates), at('delete', c.deletes), at('bookmark', i.bookmarks)];
        }),
      ),
    ),
    new MetricFamily(
      `${p}informer_errors_total`,
      'Errors an informer reported (requests, watches, rejected objects).',
      'counter',
      each((i) => i.errors),
    ),
  ];
}

function statusWriterFamilies(p: string): MetricFamily[] {
  return [
    new MetricFamily(
      `${p}status_writes_total`,
      'Status writes by result: written, skipped (already so), conflict, failed.',
      'counter',
      () =>
        sumByLabels(
          statusWriterReadings().flatMap((w) => {
            const at = (result: string, value: number): Sample => ({ labels: { collection: w.collection, result }, value });
            return [at('written', w.writes), at('skipped', w.skipped), at('conflict', w.conflicts), at('failed', w.failures)];
          }),
        ),
    ),
    new MetricFamily(`${p}status_queue_depth`, 'Keys waiting for a status write.', 'gauge', () =>
      sumByLabels(statusWriterReadings().map((w) => ({ labels: { collection: w.collection }, value: w.queued }))),
    ),
  ];
}

/**
 * Registers rxkrt's metrics on a prom-client `Registry`. Every value is read from the engine's counters when
 * the registry is scraped, so the event path pays only the increments it always pays (and, while metrics
 * are registered, a count of events by type and one timed transform run in 16). Stopped collections,
 * informers and writers leave the output. Returns a function that unregisters them all.
 * @throws Error (from prom-client) when the registry already holds a metric of the same name.
 * @example const registry = new Registry(); const stop = collectMetrics(registry); await registry.metrics();
 */
export function collectMetrics(registry: MetricsRegistry, opts?: MetricsOptions): () => void {
  const all = families(opts?.prefix ?? 'rxkrt_');
  const registered: string[] = [];
  try {
    for (const f of all) {
      // prom-client types registerMetric for its own classes; a MetricFamily has every member the Registry calls.
      registry.registerMetric(f as never);
      registered.push(f.name);
    }
  } catch (e) {
    for (const name of registered) registry.removeSingleMetric(name);
    throw e;
  }
  const stopCounting = countEventTypesWhile();
  const stopTiming = timeTransactionsWhile();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const name of registered) registry.removeSingleMetric(name);
    stopCounting();
    stopTiming();
  };
}
