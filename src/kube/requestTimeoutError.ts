// The error of a request to the API server that got no complete answer in time.

/**
 * A request rxkrt gave up on after `timeoutMs` without a complete answer (a server that accepted the
 * connection and then said nothing). The request is aborted; informers and status writers retry it with backoff.
 */
export class RequestTimeoutError extends Error {
  /** Always `'RequestTimeoutError'`. */
  override readonly name = 'RequestTimeoutError';
  constructor(
    /** The HTTP method. */
    readonly method: string,
    /** The path and query of the request, e.g. `/api/v1/configmaps?limit=500`. */
    readonly path: string,
    /** The limit that passed (the `requestTimeoutMs` option). */
    readonly timeoutMs: number,
  ) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms (requestTimeoutMs); aborted`);
  }
}
