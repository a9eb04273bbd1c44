// Reads a request body sent as Kubernetes protobuf and decodes it to the object's JSON.
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../json.js';
import { MAX_BODY_BYTES, tooLarge } from '../jsonBodies.js';
import { decodeProtobufObject } from './decodeProtobufObject.js';

/**
 * Reads an `application/vnd.kubernetes.protobuf` body and decodes it with {@link decodeProtobufObject}.
 *
 * @throws StatusError `413` for a body over 3 MiB, and whatever {@link decodeProtobufObject} throws.
 */
export async function readProtobufBody(req: IncomingMessage): Promise<JsonObject> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return decodeProtobufObject(Buffer.concat(chunks));
}
