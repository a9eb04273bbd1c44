/**
 * Metrics for Prometheus and a debug server, over every live collection, informer and status writer.
 * @module rxkrt/observe
 */
export { collectMetrics, type MetricsOptions } from './metrics/collectMetrics.js';
export type { MetricsRegistry, ScrapableRegistry } from './metrics/metricsRegistry.js';
export { startDebugServer, type DebugServer, type DebugServerOptions } from './debugServer/startDebugServer.js';
export { DebugHandler, type DebugCollection } from './DebugHandler.js';
export { collectionStats, type CollectionStats } from './collectionStats.js';
