// Small random pods and services for the bench baselines' specs: a few labels from a few values, two namespaces.
import type { Pod, Service } from '../../bench/fixtures.js';

/** A small deterministic generator (mulberry32), so that a failure replays. */
export function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
}

const LABEL_KEYS = ['app', 'tier', 'shard'];
const VALUES = ['a', 'b', 'c'];

export function labels(r: (n: number) => number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of LABEL_KEYS) if (r(3) > 0) out[k] = VALUES[r(3)]!;
  return out;
}

export function pod(r: (n: number) => number, i: number): Pod {
  const ip = r(5) === 0 ? undefined : `10.0.0.${r(250)}`;
  return {
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 2}`, labels: labels(r) },
    spec: { serviceAccountName: 'sa' },
    status: ip === undefined ? { phase: 'Pending' } : { phase: 'Running', podIP: ip },
  };
}

export function service(r: (n: number) => number, i: number): Service {
  return { metadata: { name: `svc-${i}`, namespace: `ns-${i % 2}` }, spec: { selector: labels(r) } };
}
