// rxkrt/observe: metrics for Prometheus and a debug server, over every live collection, informer and writer.
export { collectMetrics, type MetricsOptions } from './metrics/collectMetrics.js';
