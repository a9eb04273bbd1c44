// Event-to-output latency: from the write that changed a pod to the derived output that reflects it.

/** Collects latency samples and reports percentiles. */
export class LatencyRecorder {
  private readonly started = new Map<string, number>();
  private readonly samples: number[] = [];

  constructor(private readonly now: () => number) {}

  /** A write to `key` starts now (a later write to the same key restarts the clock). */
  start(key: string): void {
    this.started.set(key, this.now());
  }

  /** The output for `key` changed: one sample if a write was pending for it. */
  observe(key: string): void {
    const t0 = this.started.get(key);
    if (t0 === undefined) return;
    this.started.delete(key);
    this.samples.push(this.now() - t0);
  }

  get count(): number {
    return this.samples.length;
  }

  /** The p-th percentile (0–100) in ms, or NaN without samples. */
  percentile(p: number): number {
    if (this.samples.length === 0) return Number.NaN;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[i]!;
  }
}
