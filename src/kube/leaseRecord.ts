// Lease objects (coordination.k8s.io/v1) as rxkrt reads and writes them, and the timing options they share.
import { UsageError } from '../core/errors.js';

/** The fields of a Lease's `spec` that leader election and the shard ring use. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  /** MicroTime: RFC 3339 with microseconds. */
  renewTime?: string;
  leaseTransitions?: number;
}

/** A Lease as JSON. */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: LeaseSpec;
}

/** Lease timing, in milliseconds, validated. */
export interface LeaseTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/**
 * A MicroTime (`2026-12-03T09:25:34.123000Z`) from epoch milliseconds, as the API server stores
 * `acquireTime` and `renewTime`.
 */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Checks the timing options and turns them into milliseconds. Fractions of a second are allowed (tests use
 * them); the Lease records the duration rounded up, so observers never expire it early.
 * @throws UsageError naming the owner (`who`), the option and its value, unless 0 < retry < renew deadline < duration.
 */
export function leaseTiming(
  who: string,
  opts: { leaseDurationSeconds?: number; renewDeadlineSeconds?: number; retryPeriodSeconds?: number },
): LeaseTiming {
  const duration = opts.leaseDurationSeconds ?? 15;
  const deadline = opts.renewDeadlineSeconds ?? 10;
  const retry = opts.retryPeriodSeconds ?? 2;
  for (const [name, v] of [
    ['leaseDurationSeconds', duration],
    ['renewDeadlineSeconds', deadline],
    ['retryPeriodSeconds', retry],
  ] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new UsageError(`${who}: ${name} must be a positive number, got ${JSON.stringify(v)}`);
  }
  // A leader must give up before anyone may take over, and must get at least one retry before giving up.
  if (deadline >= duration) {
    throw new UsageError(`${who}: renewDeadlineSeconds (${deadline}) must be less than leaseDurationSeconds (${duration})`);
  }
  if (retry >= deadline) throw new UsageError(`${who}: retryPeriodSeconds (${retry}) must be less than renewDeadlineSeconds (${deadline})`);
  return { leaseDurationMs: duration * 1000, renewDeadlineMs: deadline * 1000, retryPeriodMs: retry * 1000 };
}

/**
 * The spec this replica writes to hold the lease at `now`: a renewal keeps `acquireTime` and the transition
 * count; taking it from someone else (or from nobody) starts a new term and counts a transition.
 */
export function heldSpec(old: LeaseSpec | undefined, identity: string, now: number, timing: LeaseTiming): LeaseSpec {
  const at = formatMicroTime(now);
  const renewing = old !== undefined && old.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(timing.leaseDurationMs / 1000),
    acquireTime: renewing ? (old.acquireTime ?? at) : at,
    renewTime: at,
    leaseTransitions: old === undefined ? 0 : (old.leaseTransitions ?? 0) + (renewing ? 0 : 1),
  };
}

/** The spec written on release: nobody holds it, and it lapses in a second for anyone who still thinks so. */
export function releasedSpec(old: LeaseSpec | undefined, now: number): LeaseSpec {
  const at = formatMicroTime(now);
  return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at, leaseTransitions: old?.leaseTransitions ?? 0 };
}

/** Whether two specs are the same record (an observer restarts its expiry clock whenever it changes). */
export function sameRecord(a: LeaseSpec | undefined, b: LeaseSpec | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
