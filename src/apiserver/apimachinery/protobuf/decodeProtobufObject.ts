// Kubernetes protobuf request bodies: the `k8s\0` envelope around runtime.Unknown, decoded to the JSON object.
import { badRequest, StatusError } from '../statusError.js';
import type { JsonObject } from '../json.js';
import { K8S_PROTO_KINDS } from './generated/index.js';
import { GoJsonError, messageToGoJson } from './goJson.js';
import { k8sProtoRoot } from './protoMessages.js';

/** The media type of Kubernetes protobuf bodies. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

// "k8s" and a zero byte: what every Kubernetes protobuf body starts with.
const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The kinds a protobuf body may carry, as `apiVersion/kind`. */
export function protobufKinds(): string[] {
  return Object.keys(K8S_PROTO_KINDS);
}

/**
 * Decodes a Kubernetes protobuf body (the magic prefix, then a `runtime.Unknown` whose `raw` is the object's
 * message) into the JSON object a client would have sent as JSON for the same object, `kind` and `apiVersion`
 * first.
 *
 * @throws StatusError `400` for bytes that are not a Kubernetes protobuf message, an envelope without kind or
 *   apiVersion, or an object that does not decode (naming the kind and the field); `415` for a kind this
 *   server has no protobuf schema for (it must be sent as JSON).
 */
export function decodeProtobufObject(body: Uint8Array): JsonObject {
  if (body.length === 0) throw badRequest('the protobuf body is empty');
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) {
    throw badRequest(`the body does not appear to be a Kubernetes protobuf message: expected the prefix "k8s\\x00", got ${hexStart(body)}`);
  }
  if (body.length === MAGIC.length) throw badRequest('the protobuf body has the "k8s\\x00" prefix and nothing after it');
  const root = k8sProtoRoot();
  let envelope: Record<string, unknown>;
  try {
    envelope = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(body.subarray(MAGIC.length)) as unknown as Record<
      string,
      unknown
    >;
  } catch (e) {
    throw badRequest(`the protobuf envelope (runtime.Unknown) could not be decoded: ${(e as Error).message}`);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const kind = typeMeta.kind ?? '';
  const apiVersion = typeMeta.apiVersion ?? '';
  if (kind === '') throw badRequest(`the protobuf envelope names no kind (apiVersion ${JSON.stringify(apiVersion)})`);
  if (apiVersion === '') throw badRequest(`the protobuf envelope of a ${kind} names no apiVersion`);
  const encoding = typeof envelope.contentEncoding === 'string' ? envelope.contentEncoding : '';
  if (encoding !== '')
    throw badRequest(`${kind} in version ${JSON.stringify(apiVersion)}: content encoding ${JSON.stringify(encoding)} is not supported`);
  // client-go labels DeleteOptions with the group version of the resource it deletes; there is one message.
  const key = kind === 'DeleteOptions' ? 'meta.k8s.io/v1/DeleteOptions' : `${apiVersion}/${kind}`;
  const messageName = Object.hasOwn(K8S_PROTO_KINDS, key) ? K8S_PROTO_KINDS[key] : undefined;
  if (messageName === undefined) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `${kind} in version ${JSON.stringify(apiVersion)} cannot be decoded from protobuf by this server: send it as application/json`,
    );
  }
  const type = root.lookupType(messageName);
  const raw = envelope.raw instanceof Uint8Array ? envelope.raw : new Uint8Array();
  try {
    const message = type.decode(raw) as unknown as Record<string, unknown>;
    return { kind, apiVersion, ...messageToGoJson(type, message) };
  } catch (e) {
    const what =
      e instanceof GoJsonError ? `field ${e.message}` : `its protobuf message (${type.name}) is malformed: ${(e as Error).message}`;
    throw badRequest(`${kind} in version ${JSON.stringify(apiVersion)} cannot be handled as a ${kind}: ${what}`);
  }
}

function hexStart(body: Uint8Array): string {
  return `0x${Buffer.from(body.subarray(0, 8)).toString('hex')}${body.length > 8 ? '…' : ''}`;
}
