// The shape of an object as the store holds it: decoded JSON with server-managed metadata filled in.
import type { JsonObject } from '../apimachinery/json.js';

/** `metadata` of a stored object: only the fields the server itself reads or writes are named. */
export interface StoredMeta extends JsonObject {
  name: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generation: number;
}

/** An object as the store holds it: decoded JSON with server-managed metadata filled in. */
export interface StoredObject extends JsonObject {
  metadata: StoredMeta;
}
