// The soak mode of the randomized differential tests: run fresh seeds until a deadline and write a report.
//
// `npm run soak -- --minutes N` (spec/soak/soak.mjs) sets RXKRT_SOAK_UNTIL (a time in ms since the epoch) and
// RXKRT_SOAK_DIR; each differential spec then registers one more test, which runs seeds one after another until
// the deadline, counts operations, injected faults and mismatches (a seed whose checks failed), and writes
// `<suite>.json` into that folder. It fails at the end if any seed mismatched, naming the seeds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What one seed did. */
export interface SeedRun {
  ops: number;
  faults: number;
}

/** What a suite's soak did, as written to its report. */
export interface SoakReport {
  suite: string;
  seeds: number;
  ops: number;
  faults: number;
  mismatches: number;
  /** The first failures, seed and message, to replay with RXKRT_*_SEEDS. */
  failed: Array<{ seed: number; message: string }>;
  heapStartMB: number;
  heapEndMB: number;
  minutes: number;
}

/** The soak's deadline, or undefined when the tests run as usual. */
export function soakDeadline(): number | undefined {
  const until = process.env['RXKRT_SOAK_UNTIL'];
  return until === undefined ? undefined : Number(until);
}

/** Milliseconds jest must allow the soak test (the deadline plus time for the last seed to finish). */
export function soakTimeout(deadline: number, lastSeedMs: number): number {
  return Math.max(0, deadline - Date.now()) + lastSeedMs;
}

function heapMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
}

/**
 * Runs `runSeed` on seeds from `firstSeed` on until `deadline`, then writes the report. A seed that throws is a
 * mismatch: it is recorded and the soak goes on, so one run finds every failing seed it can.
 */
export async function soak(
  suite: string,
  deadline: number,
  firstSeed: number,
  runSeed: (seed: number) => SeedRun | Promise<SeedRun>,
): Promise<SoakReport> {
  const started = Date.now();
  const report: SoakReport = {
    suite,
    seeds: 0,
    ops: 0,
    faults: 0,
    mismatches: 0,
    failed: [],
    heapStartMB: heapMB(),
    heapEndMB: 0,
    minutes: 0,
  };
  for (let seed = firstSeed; Date.now() < deadline; seed++) {
    try {
      const r = await runSeed(seed);
      report.ops += r.ops;
      report.faults += r.faults;
    } catch (e) {
      report.mismatches++;
      if (report.failed.length < 10) report.failed.push({ seed, message: (e instanceof Error ? e.message : String(e)).slice(0, 2000) });
    }
    report.seeds++;
    // A macrotask between seeds: V8 keeps every object a WeakRef was made for alive until the microtask queue
    // drains, and an await-only loop never lets it, so rxkrt's live-collection set would hold every seed's graph.
    await new Promise((resolve) => setImmediate(resolve));
  }
  report.heapEndMB = heapMB();
  report.minutes = Math.round((Date.now() - started) / 600) / 100;
  const dir = process.env['RXKRT_SOAK_DIR'];
  if (dir !== undefined) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${suite}.json`), JSON.stringify(report, null, 2));
  }
  return report;
}
