// node:http plumbing: reading bodies, writing JSON and Status responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from './json.js';
import { MAX_JSON_DEPTH, textTooDeepAt } from './jsonDepth.js';
import { badRequest, StatusError } from './statusError.js';
import { decodeYaml } from './yamlBody.js';

/** The API server's own request size limit. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

// Named one by one: a pattern such as /json/ let `text/x-json-whatever` through.
const DECODABLE_MEDIA_TYPES = new Set([
  'application/json',
  'application/yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
]);

const YAML_MEDIA_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml']);

/**
 * Reads and decodes a JSON or YAML request body. `application/yaml` and `application/apply-patch+yaml` bodies are
 * YAML (kubectl and client-node send JSON there, which is YAML too, and is read as JSON; the Python client and
 * hand-written requests send block YAML), decoded by {@link decodeYaml}; everything else is JSON.
 *
 * @throws StatusError `400` for an undecodable body (see {@link decodeYaml} for YAML's rules) or one nested deeper than
 *   {@link MAX_JSON_DEPTH}, `413` for one over 3 MiB, `415` for a media type other than JSON or YAML (protobuf, CBOR),
 *   and for a body (or any POST, PUT or PATCH) without a Content-Type.
 */
export async function readJsonBody(req: IncomingMessage): Promise<JsonValue | undefined> {
  const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== '' && !DECODABLE_MEDIA_TYPES.has(media)) {
    // Protobuf bodies of built-in kinds never reach here: the resource handler reads them (readProtobufBody).
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${[...DECODABLE_MEDIA_TYPES].join(', ')}`,
    );
  }
  const text = (await readBodyBytes(req)).toString('utf8');
  // kube-apiserver assumes JSON here; refusing instead closes the one door a web page has: a cross-site `fetch`
  // with a body and no content type is a "simple" request, sent without a CORS preflight.
  if (media === '' && (text.trim() !== '' || ['POST', 'PUT', 'PATCH'].includes(req.method ?? ''))) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `${req.method ?? 'a'} request needs a Content-Type: application/json or application/yaml`,
    );
  }
  if (text.trim() === '') return undefined;
  // kube hands a YAML body that is JSON straight to the JSON decoder.
  if (YAML_MEDIA_TYPES.has(media) && !text.trimStart().startsWith('{')) return decodeYaml(text);
  // Checked before parsing: a body a few thousand levels deep parses, but overflows the stack of whatever
  // walks it next (cloning, equality, serializing a LIST), long after it was stored.
  const deepAt = textTooDeepAt(text, MAX_JSON_DEPTH);
  if (deepAt !== undefined) {
    throw badRequest(
      `the body of the request could not be decoded: nesting exceeds the maximum depth of ${MAX_JSON_DEPTH} at offset ${deepAt}`,
    );
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message}`);
  }
}

/**
 * Reads a request body whole, whatever its format.
 *
 * @throws StatusError `413` for a body over {@link MAX_BODY_BYTES}: one whose Content-Length says so is refused
 *   before a byte of it is read, one that only turns out so is refused as it crosses the limit.
 */
export async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** `413 RequestEntityTooLarge` for a body over {@link MAX_BODY_BYTES}. */
export function tooLarge(): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
}

// Responses whose request asked for indented JSON (`?pretty=true`, or curl's and browsers' User-Agents).
const PRETTY_RESPONSES = new WeakSet<ServerResponse>();

/** Makes every later JSON answer on `res` (errors included) indented by two spaces, as `?pretty=true` asks. */
export function prettyPrint(res: ServerResponse): void {
  PRETTY_RESPONSES.add(res);
}

/**
 * Sends a JSON response, unless the connection is already gone (a closed server, a cut client). When headers
 * already went out (a watch that failed mid-stream) no answer can follow them: the socket is cut instead, so a
 * second `writeHead` never throws out of a handler.
 */
export function sendJson(res: ServerResponse, status: number, body: JsonValue, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // Serialized before the headers, so a body that cannot be serialized leaves them unsent for the 500.
  const text = PRETTY_RESPONSES.has(res) ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Sends any thrown value as a `Status`: StatusErrors keep their code, anything else is a `500`. Never throws:
 * it is the last resort of every handler, so when even the answer fails the socket is cut.
 */
export function sendError(res: ServerResponse, error: unknown): void {
  try {
    sendStatus(res, error);
  } catch {
    res.destroy();
  }
}

function sendStatus(res: ServerResponse, error: unknown): void {
  const statusError =
    error instanceof StatusError
      ? error
      : new StatusError(
          500,
          'InternalError',
          `Internal error occurred: ${String((error as Partial<Error> | null | undefined)?.message ?? error)}`,
        );
  const headers: Record<string, string> = {};
  const retry = statusError.details?.retryAfterSeconds;
  if (retry !== undefined) headers['Retry-After'] = String(retry);
  sendJson(res, statusError.code, statusError.toStatus(), headers);
}
