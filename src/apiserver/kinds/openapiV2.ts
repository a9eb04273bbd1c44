// `GET /openapi/v2`: an OpenAPI v2 document with no definitions, for the kubectl paths that still read v2.
import protobuf from 'protobufjs';
import type { JsonObject } from '../apimachinery/json.js';

/** The media type kubectl asks `/openapi/v2` for: gnostic's protobuf form of the Swagger document. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const INFO = { title: 'Kubernetes', version: 'v1.32.0-rxkrt' };

/**
 * The document as JSON. kubectl validates a `List` manifest against v2 (its items have no v3 path of their
 * own); a kind the document does not define is skipped, as for a custom resource without a schema, so an empty
 * document lets `kubectl apply -f list.yaml` through where a 404 made it fail.
 */
export function openApiV2Doc(): JsonObject {
  return { swagger: '2.0', info: { ...INFO }, paths: {}, definitions: {} };
}

let encoded: Uint8Array | undefined;

/** The same document in gnostic's `openapi.v2.Document` protobuf (swagger = 1, info = 2 with title = 1, version = 2). */
export function openApiV2Protobuf(): Uint8Array {
  if (encoded === undefined) {
    const root = protobuf.Root.fromJSON({
      nested: {
        Info: { fields: { title: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
        Document: { fields: { swagger: { type: 'string', id: 1 }, info: { type: 'Info', id: 2 } } },
      },
    });
    const document = root.lookupType('Document');
    encoded = document.encode(document.create({ swagger: '2.0', info: { ...INFO } })).finish();
  }
  return encoded;
}
