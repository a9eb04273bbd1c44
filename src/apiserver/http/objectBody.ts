// Request bodies of writes: JSON (or YAML), or Kubernetes protobuf for built-in kinds and DeleteOptions.
import type { IncomingMessage } from 'node:http';
import type { JsonValue } from '../apimachinery/json.js';
import { readJsonBody } from '../apimachinery/jsonBodies.js';
import { PROTOBUF_MEDIA_TYPE } from '../apimachinery/protobuf/decodeProtobufObject.js';
import { readProtobufBody } from '../apimachinery/protobuf/readProtobufBody.js';
import { StatusError } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';

/**
 * Reads the object a POST or PUT carries. Built-in kinds take Kubernetes protobuf as a real server does
 * (kubectl's imperative `create` sends it); custom resources do not, so a protobuf body for one is a `415`.
 *
 * @throws StatusError as {@link readJsonBody} and {@link readProtobufBody} do, and `415` for protobuf sent
 *   to a custom resource.
 */
export async function readObjectBody(req: IncomingMessage, rt: ResourceType): Promise<JsonValue | undefined> {
  if (mediaTypeOf(req) !== PROTOBUF_MEDIA_TYPE) return readJsonBody(req);
  if (rt.custom) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${rt.kind} is a custom resource, which has no protobuf form)`,
    );
  }
  return readProtobufBody(req);
}

/**
 * Reads the `DeleteOptions` a DELETE may carry: JSON, or Kubernetes protobuf (which typed Go clients send),
 * on any resource, custom ones included.
 *
 * @throws StatusError as {@link readJsonBody} and {@link readProtobufBody} do.
 */
export async function readOptionsBody(req: IncomingMessage): Promise<JsonValue | undefined> {
  return mediaTypeOf(req) === PROTOBUF_MEDIA_TYPE ? readProtobufBody(req) : readJsonBody(req);
}

function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
