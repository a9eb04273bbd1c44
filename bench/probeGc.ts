// The probes' gc and timing helpers: scavenges before a run (refusing to run without `--expose-gc`), the gc
// time a run reports, and a pause.
import { PerformanceObserver } from 'node:perf_hooks';
import { forcedGc, minorGc } from './harness.js';

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` scavenges (`--expose-gc`), or as many forced full gcs with `forced`. The scavenges are what the harness
 * runs before each run; they were asked for as `gc({ type: 'major' })`, which Node 20 runs as a scavenge.
 */
export function collect(count = 2, forced = false): void {
  if ((globalThis as { gc?: unknown }).gc === undefined) throw new Error('run with node --expose-gc (npm run bench:probe does)');
  for (let i = 0; i < count; i++) (forced ? forcedGc : minorGc)();
}

/** Milliseconds of gc reported while `fn` runs (the observer's entries arrive a macrotask later). */
export async function gcDuring(fn: () => Promise<void>): Promise<number> {
  let ms = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) ms += e.duration;
  });
  obs.observe({ entryTypes: ['gc'] });
  await fn();
  await pause(50);
  obs.disconnect();
  return ms;
}
