// Shared shapes of the embedded API server: JSON values, stored objects and resource types.

/** Any JSON value, as decoded from a request body. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

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

/**
 * One servable resource at one group/version: what discovery advertises and what the router resolves.
 * Several versions of one CRD share a `storageKey`, so they serve the same objects (as a real server
 * does with `conversion: None`).
 */
export interface ResourceType {
  /** API group, `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** `v1` or `group/version`: the `apiVersion` objects are served with. */
  readonly groupVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  /** Whether a `/status` subresource exists (writes to the main resource then ignore `.status`). */
  readonly statusSubresource: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Field selector keys accepted beyond `metadata.name` and `metadata.namespace`. */
  readonly selectableFields: readonly string[];
  /** True for kinds defined by a CustomResourceDefinition. */
  readonly custom: boolean;
  /** Where the objects live in the store: `group/plural`, shared by every version. */
  readonly storageKey: string;
}
