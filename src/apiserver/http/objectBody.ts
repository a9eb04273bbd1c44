// The object body of a create or an update: JSON (or YAML), or Kubernetes protobuf for a built-in kind.
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
  const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (media !== PROTOBUF_MEDIA_TYPE) return readJsonBody(req);
  if (rt.custom) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${rt.kind} is a custom resource, which has no protobuf form)`,
    );
  }
  return readProtobufBody(req);
}
