// How long the server asked us to wait before retrying (Retry-After), read from an answer and honoured with a cap.
import { ApiError } from './apiError.js';

/** The longest wait a server's Retry-After can impose: a wrong or hostile value must not park rxkrt for hours. */
export const MAX_RETRY_AFTER_MS = 30_000;

/**
 * The wait (ms, capped at 30 s) a failed request must respect before it is retried: the server's Retry-After on
 * a 429 or 5xx answer (as client-go honours it), else undefined.
 */
export function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof ApiError) || error.retryAfterMs === undefined) return undefined;
  if (error.statusCode !== 429 && error.statusCode < 500) return undefined;
  return Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS);
}

/**
 * Parses a Retry-After header (delta-seconds, or an HTTP-date read against the answer's own Date header so no
 * local clock is involved) or a Status body's `details.retryAfterSeconds`. Undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, dateHeader: string | undefined, detailsSeconds: unknown): number | undefined {
  if (header !== undefined && /^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  if (header !== undefined && dateHeader !== undefined) {
    const ms = Date.parse(header) - Date.parse(dateHeader);
    if (Number.isFinite(ms)) return Math.max(0, ms);
  }
  if (typeof detailsSeconds === 'number' && Number.isFinite(detailsSeconds) && detailsSeconds >= 0) return detailsSeconds * 1000;
  return undefined;
}
