// The error a reconciler reports when a reconcile (or onDelete) throws.

/** One failed reconcile: which reconciler, which key, which attempt, and when it will be tried again. */
export class ReconcileError extends Error {
  /** Always `'ReconcileError'`. */
  override readonly name = 'ReconcileError';

  constructor(
    /** The reconciler's name. */
    readonly reconciler: string,
    /** The key whose reconcile threw. */
    readonly key: string,
    /** The attempt that failed (1-based; consecutive failures of this key). */
    readonly attempt: number,
    /** The wait before the next attempt (exponential backoff with jitter). */
    readonly retryInMs: number | undefined,
    /** What the reconcile threw. */
    override readonly cause: unknown,
  ) {
    const what = cause instanceof Error ? cause.message : String(cause);
    const next = retryInMs === undefined ? 'giving up' : `retrying in ${retryInMs} ms`;
    super(`${reconciler}: reconcile of ${key} failed (attempt ${attempt}, ${next}): ${what}`);
  }
}
