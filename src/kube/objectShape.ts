// What an informer stores of each object: its type filled in, server bookkeeping stripped, the user's transform.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceRef } from './resourcePath.js';
import type { InformerOptions } from './informerOptions.js';

/** The annotation `kubectl apply` keeps a whole copy of the object in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The `Accept` of a metadata-only LIST: the server answers with a `PartialObjectMetadataList`. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The `Accept` of a metadata-only WATCH: each event carries a `PartialObjectMetadata`. */
export const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/** How objects of one informer are received and stored. */
export interface ObjectShape {
  /** The kind and apiVersion objects arrive with (`PartialObjectMetadata` for a metadata-only informer). */
  readonly as: { readonly kind: string; readonly apiVersion: string };
  /** The `Accept` of LIST requests, if not plain JSON. */
  readonly listAccept?: string;
  /** Extra headers of WATCH requests. */
  readonly watchHeaders?: Readonly<Record<string, string>>;
  /**
   * A LIST item with its type filled in (items usually omit it; watch events carry it). In place: a LIST item
   * is a fresh object parsed for this informer alone, and a copy per item was most of a LIST's garbage.
   */
  typed(object: KubernetesObject): KubernetesObject;
  /** The object to store: stripped if asked, then transformed. */
  stored(object: KubernetesObject): KubernetesObject;
}

/**
 * `metadata.managedFields` and the last-applied annotation removed (a copy; the object is left alone). They
 * are often most of an object's size and no controller reads them.
 * @example stripServerFields(pod).metadata?.managedFields === undefined
 */
export function stripServerFields<T extends KubernetesObject>(object: T): T {
  const meta = object.metadata;
  if (meta === undefined || (meta.managedFields === undefined && meta.annotations?.[LAST_APPLIED_ANNOTATION] === undefined)) return object;
  const { managedFields: _managed, ...rest } = meta;
  const stripped = { ...rest };
  if (meta.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) {
    const { [LAST_APPLIED_ANNOTATION]: _applied, ...annotations } = meta.annotations;
    if (Object.keys(annotations).length > 0) stripped.annotations = annotations;
    else delete stripped.annotations;
  }
  return { ...object, metadata: stripped };
}

/** The shape of one informer's objects. */
export function shapeOf(ref: ResourceRef, opts: InformerOptions | undefined): ObjectShape {
  const as = opts?.metadataOnly
    ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' }
    : { kind: ref.kind, apiVersion: ref.apiVersion };
  const strip = opts?.stripServerFields === true;
  const transform = opts?.transform;
  return {
    as,
    listAccept: opts?.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
    watchHeaders: opts?.metadataOnly ? { Accept: METADATA_WATCH_ACCEPT } : undefined,
    typed(object) {
      if (object.kind === undefined || object.apiVersion === undefined) {
        object.apiVersion = as.apiVersion;
        object.kind = as.kind;
      }
      return object;
    },
    stored(object) {
      const plain = strip ? stripServerFields(object) : object;
      return transform === undefined ? plain : transform(plain);
    },
  };
}
