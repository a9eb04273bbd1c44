// A histogram of durations in fixed buckets: a handful of array writes per observation, read at scrape time.

/** One line of a histogram in Prometheus's form (a metric's `_bucket`, `_sum` or `_count`). */
export interface HistogramSample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/** Bucket bounds, in seconds, for transaction and transform durations: 10 µs to 10 s. */
export const TRANSACTION_BUCKETS: readonly number[] = [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

/** @internal Counts observations per bucket; `samples` gives them in Prometheus's cumulative form. */
export class DurationHistogram {
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError(`histogram buckets must increase, got ${JSON.stringify(bounds)}`);
    }
    this.counts = new Float64Array(bounds.length);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** `_bucket` lines (cumulative, with `+Inf`), `_sum` and `_count`. */
  samples(name: string, labels: Readonly<Record<string, string>> = {}): HistogramSample[] {
    const out: HistogramSample[] = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += this.counts[i]!;
      out.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
    });
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: this.count });
    out.push({ metricName: `${name}_sum`, labels, value: this.sum });
    out.push({ metricName: `${name}_count`, labels, value: this.count });
    return out;
  }
}
