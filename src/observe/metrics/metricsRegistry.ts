// The part of a prom-client Registry rxkrt calls, so that rxkrt's types do not need prom-client installed.

/** What `collectMetrics` needs of a registry: prom-client's `Registry` is one. */
export interface MetricsRegistry {
  /** Adds a metric; prom-client throws when one of the same name is registered. */
  registerMetric(metric: never): void;
  /** Removes a metric by name. */
  removeSingleMetric(name: string): void;
}

/** What the debug server needs to serve `/metrics`: prom-client's `Registry` is one. */
export interface ScrapableRegistry extends MetricsRegistry {
  /** The exposition text of every registered metric. */
  metrics(): Promise<string>;
  /** The Content-Type of that text. */
  readonly contentType: string;
}
