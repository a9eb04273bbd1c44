// Admission: whether an object an informer received from the server may be stored. The one place that
// decides it, for LIST items and watch events alike, so both paths refuse the same things.
import type { KubernetesObject } from '@kubernetes/client-node';
import { tryKeyOf } from '../core/keyOf.js';
import type { ResourceRef } from './resourcePath.js';
import { fieldSelectorMatcher, labelSelectorMatcher } from './selectorMatch.js';

/**
 * The verdict on one value: the object to store, or why not (with its key when it has one). `ours`: the
 * object is one the informer follows, only malformed, so a relist must not take it for deleted.
 */
export type Verdict =
  | { readonly ok: true; readonly object: KubernetesObject }
  | { readonly ok: false; readonly key: string | undefined; readonly reason: string; readonly ours?: boolean };

/** Decides on values from one resource; build it once per informer (it parses the selectors). */
export type Admission = (value: unknown) => Verdict;

/**
 * Whether a resourceVersion is one rxkrt can watch from. Kubernetes servers use decimal counters; anything
 * else would be sent back on the next watch and refused (400) for ever.
 */
export function isDecimalResourceVersion(rv: unknown): rv is string {
  return typeof rv === 'string' && /^\d{1,20}$/.test(rv);
}

/**
 * The admission rules of `ref`: a plain object with a string `metadata.name` (and, when present, a string
 * namespace and a label map); `kind`/`apiVersion` (when present) those of `ref`; in `ref.namespace` if set;
 * selected by `ref.labelSelector` and the name/namespace terms of `ref.fieldSelector`; a decimal
 * resourceVersion unless `opaqueResourceVersions`.
 */
export function admissionFor(
  ref: ResourceRef,
  opts: { opaqueResourceVersions?: boolean; as?: { readonly kind: string; readonly apiVersion: string } } = {},
): Admission {
  // A metadata-only informer receives PartialObjectMetadata, whatever the resource's own kind.
  const kind = opts.as?.kind ?? ref.kind;
  const apiVersion = opts.as?.apiVersion ?? ref.apiVersion;
  const labelsMatch = labelSelectorMatcher(ref.labelSelector);
  const fieldsMatch = fieldSelectorMatcher(ref.fieldSelector);
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return no(undefined, 'not an object');
    const o = value as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
    const meta = o.metadata as { name?: unknown; namespace?: unknown; labels?: unknown; resourceVersion?: unknown } | null | undefined;
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return no(undefined, 'no metadata object');
    if (typeof meta.name !== 'string' || meta.name === '') return no(undefined, 'no metadata.name');
    if (meta.namespace !== undefined && typeof meta.namespace !== 'string') return no(undefined, 'metadata.namespace is not a string');
    const key = tryKeyOf(value);
    if (o.kind !== undefined && o.kind !== kind) return no(key, `kind ${JSON.stringify(o.kind)} is not ${kind}`);
    if (o.apiVersion !== undefined && o.apiVersion !== apiVersion)
      return no(key, `apiVersion ${JSON.stringify(o.apiVersion)} is not ${apiVersion}`);
    if (ref.namespace && meta.namespace !== ref.namespace)
      return no(
        key,
        `namespace ${JSON.stringify(meta.namespace ?? '')} is outside the informer's namespace ${JSON.stringify(ref.namespace)}`,
      );
    const labels = meta.labels;
    if (labels !== undefined && (labels === null || typeof labels !== 'object' || Array.isArray(labels)))
      return no(key, 'metadata.labels is not a map');
    if (!labelsMatch(labels as Record<string, string> | undefined))
      return no(key, `labels do not match the informer's labelSelector ${JSON.stringify(ref.labelSelector)}`);
    if (!fieldsMatch(meta)) return no(key, `does not match the informer's fieldSelector ${JSON.stringify(ref.fieldSelector)}`);
    const rv = meta.resourceVersion;
    if (opts.opaqueResourceVersions ? rv !== undefined && typeof rv !== 'string' : !isDecimalResourceVersion(rv))
      return { ok: false, key, reason: `resourceVersion ${JSON.stringify(rv)} is not a decimal string`, ours: true };
    return { ok: true, object: value as KubernetesObject };
  };
}

function no(key: string | undefined, reason: string): Verdict {
  return { ok: false, key, reason };
}
