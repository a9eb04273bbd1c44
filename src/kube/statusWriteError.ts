// The error a status writer reports when it gives up on a key, or when server-side apply finds a conflict.
import { ApiError } from './apiError.js';

/** Names the managers a server-side apply conflicted with, read from the 409's message (`conflict with "m": .status.x`). */
export function conflictingManagers(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.statusCode !== 409) return [];
  return [...new Set([...error.message.matchAll(/conflict with "([^"]+)"/g)].map((m) => m[1]!))];
}

/** A status write that failed for good: the writer, the key, the attempts, and for apply conflicts the other managers. */
export class StatusWriteError extends Error {
  /** Always `'StatusWriteError'`. */
  override readonly name = 'StatusWriteError';
  /** The HTTP status of the last answer; undefined when there was none (network, timeout). */
  readonly statusCode: number | undefined;
  /** For a server-side apply conflict: the field managers that own the fields this writer wanted to set. */
  readonly conflictingManagers: readonly string[];

  constructor(
    /** The writer's name. */
    readonly writer: string,
    /** The object's key. */
    readonly key: string,
    /** Attempts made. */
    readonly attempts: number,
    /** What the last attempt threw. */
    override readonly cause: unknown,
  ) {
    const managers = conflictingManagers(cause);
    const status = cause instanceof ApiError ? cause.statusCode : undefined;
    const what =
      managers.length > 0
        ? `the status fields it computes are owned by ${managers.map((m) => `"${m}"`).join(', ')} (server-side apply conflict; set force to take them)`
        : cause instanceof Error
          ? cause.message
          : String(cause);
    super(`${writer}: giving up on the status of ${key} after ${attempts} attempt(s): ${what}`);
    this.statusCode = status;
    this.conflictingManagers = managers;
  }
}
