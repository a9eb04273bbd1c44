// Reconnect backoff: exponential, capped; a pure function so the informer's state machine stays pure.

/** How long to wait before retrying. */
export interface BackoffPolicy {
  /** First delay (ms). Default 100. */
  initialMs?: number;
  /** Cap (ms). Default 5000. */
  maxMs?: number;
}

/** The delay before retry number `attempt` (1-based): initial · 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, policy?: BackoffPolicy): number {
  const initial = policy?.initialMs ?? 100;
  const max = policy?.maxMs ?? 5000;
  if (attempt <= 0) return 0;
  return Math.min(max, initial * 2 ** Math.min(attempt - 1, 30));
}
