// Reads a request body sent as Kubernetes protobuf and decodes it to the object's JSON.
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../json.js';
import { readBodyBytes } from '../jsonBodies.js';
import { decodeProtobufObject } from './decodeProtobufObject.js';

/**
 * Reads an `application/vnd.kubernetes.protobuf` body and decodes it with {@link decodeProtobufObject}.
 *
 * @throws StatusError `413` for a body over 3 MiB, and whatever {@link decodeProtobufObject} throws.
 */
export async function readProtobufBody(req: IncomingMessage): Promise<JsonObject> {
  return decodeProtobufObject(await readBodyBytes(req));
}
