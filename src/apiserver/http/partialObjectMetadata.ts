// Metadata-only answers: what a client asking `Accept: application/json;as=PartialObjectMetadata(List);g=meta.k8s.io;v=v1` gets.
import type { JsonObject } from '../apimachinery/json.js';

const META_API_VERSION = 'meta.k8s.io/v1';

/**
 * Whether the `Accept` header asks for metadata only (the `as=PartialObjectMetadata` or
 * `as=PartialObjectMetadataList` media type parameters, group `meta.k8s.io`, as metadata informers send).
 */
export function wantsPartialObjectMetadata(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((type) => {
    const params = new Map(
      type
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string | undefined]),
    );
    const as = params.get('as');
    return (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && params.get('g') === 'meta.k8s.io';
  });
}

/** An object as `PartialObjectMetadata`: its metadata alone. */
export function partialObjectMetadata(object: JsonObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION, metadata: object.metadata ?? {} };
}

/** A list as `PartialObjectMetadataList`: the list's metadata, and each item's. */
export function partialObjectMetadataList(list: JsonObject): JsonObject {
  const items = Array.isArray(list.items) ? list.items : [];
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: META_API_VERSION,
    metadata: list.metadata ?? {},
    items: items.map((o) => partialObjectMetadata(o as JsonObject)),
  };
}
