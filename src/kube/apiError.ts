// The error of an HTTP answer other than 2xx from the API server.

/** An HTTP answer other than 2xx, with the Status body's message and reason when there is one. */
export class ApiError extends Error {
  /** Always `'ApiError'`. */
  override readonly name = 'ApiError';
  constructor(
    /** The HTTP status code. */
    readonly statusCode: number,
    message: string,
    /** The Status body's `reason` (`NotFound`, `Conflict`, …), when it had one. */
    readonly reason?: string,
    /** How long the server asked the client to wait before retrying (Retry-After, or the Status's `details.retryAfterSeconds`), uncapped. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
