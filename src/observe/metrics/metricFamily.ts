// One Prometheus metric whose samples are read at scrape time, in the shape prom-client's Registry formats.

/** Label values of one sample. */
export type SampleLabels = Readonly<Record<string, string | number>>;

/** One sample of a metric (a histogram's `_bucket`, `_sum` and `_count` lines name themselves). */
export interface Sample {
  readonly labels: SampleLabels;
  readonly value: number;
  readonly metricName?: string;
}

/** What prom-client's Registry calls on a registered metric. */
export interface MetricFamilySnapshot {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/**
 * A metric computed when scraped. prom-client's own Counter and Gauge keep values that code pushes into them;
 * rxkrt's values already live in counters the engine bumps, so it hands the registry a metric that reads them.
 * It has the members the Registry uses (`name`, `help`, `type`, `aggregator`, `get`, `reset`, `collect`).
 */
export class MetricFamily {
  readonly aggregator = 'sum' as const;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    private readonly read: () => Sample[],
  ) {}

  get(): Promise<MetricFamilySnapshot> {
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.read() });
  }

  /** Nothing to reset: the values belong to the engine, and counters only grow. */
  reset(): void {}

  collect(): void {}
}

/**
 * Sums samples with equal labels: two collections (or informers) may share a name, and Prometheus refuses a
 * series that appears twice.
 */
export function sumByLabels(samples: readonly Sample[]): Sample[] {
  const byLabels = new Map<string, { labels: SampleLabels; value: number }>();
  for (const s of samples) {
    const id = JSON.stringify(s.labels);
    const seen = byLabels.get(id);
    if (seen === undefined) byLabels.set(id, { labels: s.labels, value: s.value });
    else seen.value += s.value;
  }
  return [...byLabels.values()];
}
