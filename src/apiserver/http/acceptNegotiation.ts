// Accept headers: which answers a client takes. The server writes JSON only, never protobuf.
import { StatusError } from '../apimachinery/statusError.js';

// Media ranges a JSON answer satisfies (parameters such as `as=Table` aside: clients list plain JSON after them).
const JSON_RANGES = new Set(['application/json', 'application/*', '*/*']);

/**
 * Refuses a request whose Accept header lists no media type a JSON answer satisfies (for example
 * `application/vnd.kubernetes.protobuf` alone), as a real server refuses a type it cannot encode. A missing
 * or empty header accepts anything.
 *
 * @throws StatusError `406 NotAcceptable` naming the media types the server can send.
 */
export function checkAcceptsJson(accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  const ranges = accept.split(',').map((r) => r.split(';')[0]!.trim().toLowerCase());
  if (ranges.some((r) => r === '' || JSON_RANGES.has(r))) return;
  throw new StatusError(406, 'NotAcceptable', 'only the following media types are accepted: application/json');
}
