// The status a built-in kind is created with: its Go status struct at zero value, as a real server answers it.
import type protobuf from 'protobufjs';
import type { JsonObject } from '../json.js';
import { K8S_PROTO_KINDS } from './generated/index.js';
import { messageToGoJson } from './goJson.js';
import { k8sProtoRoot } from './protoMessages.js';

const cache = new Map<string, JsonObject>();

/**
 * The JSON of the kind's status message with no field set (`{}` for a kind this server has no schema for).
 * Go's encoder writes non-`omitempty` fields even at zero, so a new Service answers `{"loadBalancer":{}}` and a
 * new PodDisruptionBudget its four counters at 0; clients that compare what they sent with what they got expect it.
 */
export function zeroStatusOf(apiVersion: string, kind: string): JsonObject {
  const key = `${apiVersion}/${kind}`;
  let zero = cache.get(key);
  if (zero === undefined) {
    zero = {};
    const messageName = Object.hasOwn(K8S_PROTO_KINDS, key) ? K8S_PROTO_KINDS[key] : undefined;
    const field = messageName === undefined ? undefined : k8sProtoRoot().lookupType(messageName).fields.status;
    if (field !== undefined) {
      const type = field.resolve().resolvedType as protobuf.Type | null;
      if (type !== null) zero = messageToGoJson(type, type.decode(new Uint8Array()) as unknown as Record<string, unknown>);
    }
    cache.set(key, zero);
  }
  // A copy: hooks fill in the status of the object they are given.
  return structuredClone(zero);
}
