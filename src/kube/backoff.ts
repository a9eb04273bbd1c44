// Reconnect backoff: exponential, capped; pure functions so the informer's state machine stays pure.

/** How long to wait before retrying. */
export interface BackoffPolicy {
  /** First delay (ms). Default 100. */
  initialMs?: number;
  /** Cap (ms). Default 5000. */
  maxMs?: number;
  /**
   * Spread each wait the informer and the status writer make over [delay/2, delay] ("equal jitter"), so that
   * many clients cut off at once do not all come back at once. Default true.
   */
  jitter?: boolean;
  /** The random source of the jitter, returning values in [0, 1]. Default `Math.random`; inject one to make tests deterministic. */
  random?: () => number;
}

/** The delay before retry number `attempt` (1-based): initial · 2^(attempt-1), capped. Without jitter. */
export function backoffDelay(attempt: number, policy?: BackoffPolicy): number {
  const initial = policy?.initialMs ?? 100;
  const max = policy?.maxMs ?? 5000;
  if (attempt <= 0) return 0;
  return Math.min(max, initial * 2 ** Math.min(attempt - 1, 30));
}

/** `delay` with the policy's equal jitter: a whole number of ms in [delay/2, delay] (`delay` itself when jitter is off). */
export function jitteredDelay(delay: number, policy?: BackoffPolicy): number {
  if (policy?.jitter === false || delay <= 0) return delay;
  // Clamped: an injected source may return anything, and a wait must stay within the backoff it jitters.
  const raw = (policy?.random ?? Math.random)();
  const r = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 1;
  return Math.round(delay / 2 + (r * delay) / 2);
}
