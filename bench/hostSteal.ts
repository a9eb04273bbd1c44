// How much CPU time the hypervisor gave other guests while a scenario ran: on a shared host the one number
// that tells a slow run from a slow change. Linux only (the `steal` column of /proc/stat); elsewhere absent.
import { readFileSync } from 'node:fs';

/** CPU time counters of the whole machine, in clock ticks. */
export interface CpuTicks {
  readonly steal: number;
  readonly total: number;
}

/** The machine's counters now, or undefined where /proc/stat does not exist or has no steal column. */
export function cpuTicks(): CpuTicks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal [guest guest_nice, already counted in user and nice]
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { steal: fields[7]!, total };
  } catch {
    return undefined;
  }
}

/** The share of CPU time stolen between two readings, as a percentage, or undefined. */
export function stealPercent(from: CpuTicks | undefined, to: CpuTicks | undefined): number | undefined {
  if (from === undefined || to === undefined || to.total <= from.total) return undefined;
  return (100 * (to.steal - from.steal)) / (to.total - from.total);
}
