// Failures as Kubernetes `Status` objects: one error class and constructors named after each reason.
import type { JsonObject } from './json.js';

/** The `details` block of a failure `Status`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: Array<{ reason?: string; message: string; field?: string; type?: string }>;
  retryAfterSeconds?: number;
}

/**
 * An error that the HTTP layer turns into a `Status` response with the same code and reason.
 * Everything below the router throws these and nothing else on purpose.
 */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  /** The `Status` body a real API server sends for this failure. */
  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = JSON.parse(JSON.stringify(this.details)) as JsonObject;
    return status;
  }
}

/** The reason a real server pairs with each status code we emit on purpose (or inject via faults). */
export function reasonForCode(code: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    406: 'NotAcceptable',
    409: 'Conflict',
    410: 'Expired',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return reasons[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/** `404 NotFound` for an object: `pods "x" not found`. */
export function notFound(plural: string, name: string, group = ''): StatusError {
  const what = group ? `${plural}.${group}` : plural;
  return new StatusError(404, 'NotFound', `${what} "${name}" not found`, { name, group: group || undefined, kind: plural });
}

/** `404 NotFound` for a path the server does not serve. */
export function unknownPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource');
}

/** `409 AlreadyExists` on create of a taken name. */
export function alreadyExists(plural: string, name: string, group = ''): StatusError {
  const what = group ? `${plural}.${group}` : plural;
  return new StatusError(409, 'AlreadyExists', `${what} "${name}" already exists`, { name, group: group || undefined, kind: plural });
}

/** `409 Conflict` for a failed optimistic-concurrency precondition. */
export function conflict(plural: string, name: string, group = '', why?: string): StatusError {
  const what = group ? `${plural}.${group}` : plural;
  const message = why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${what} "${name}": ${message}`, {
    name,
    group: group || undefined,
    kind: plural,
  });
}

/** One bad field of a `422 Invalid`; `reason` defaults to `FieldValueInvalid`. */
export interface FieldCause {
  field: string;
  message: string;
  reason?: string;
}

/**
 * `422 Invalid` with one cause per bad field: `Pod "x" is invalid: metadata.name: Required value`, or with several,
 * `Pod "x" is invalid: [a: …, b: …]` as apimachinery prints an aggregate.
 */
export function invalid(kind: string, name: string, causes: FieldCause[], group = ''): StatusError {
  const each = causes.map((c) => `${c.field}: ${c.message}`);
  const text = each.length === 1 ? each[0]! : `[${each.join(', ')}]`;
  const what = group ? `${kind}.${group}` : kind;
  return new StatusError(422, 'Invalid', `${what} "${name}" is invalid: ${text}`, {
    name,
    group: group || undefined,
    kind,
    causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}

/** `400 BadRequest`. */
export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** `410 Expired` for a resourceVersion or continue token older than the retained history. */
export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/**
 * `504 Timeout` for a resourceVersion newer than any the server issued: kube-apiserver's answer once its cache
 * has not caught up within ~3 s; clients retry after a second.
 */
export function tooLargeResourceVersion(rv: number, current: number): StatusError {
  // apimachinery's NewTimeoutError prefixes every message with "Timeout: ".
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/** `405 MethodNotAllowed`. */
export function methodNotAllowed(method: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
}
