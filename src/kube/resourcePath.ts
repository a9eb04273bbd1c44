// REST paths of a Kubernetes resource: where to LIST and WATCH it.
import { UsageError } from '../core/errors.js';

/** Which objects an informer follows. */
export interface ResourceRef {
  /** `v1` for the core group, else `group/version`. */
  apiVersion: string;
  /** The kind, as in the objects' `kind` field (`Pod`). */
  kind: string;
  /** Overrides the default plural (lower-case kind + `s`, with the usual English endings). */
  plural?: string;
  /** One namespace; absent means every namespace (or a cluster-scoped kind). */
  namespace?: string;
  /** A label selector in the API's text form (`app=web,tier!=db`), applied by the server. */
  labelSelector?: string;
  /** A field selector in the API's text form (`metadata.name=a`), applied by the server. */
  fieldSelector?: string;
}

/**
 * The default plural of a kind: lower-case + `s`; `y` → `ies`; `s`, `x`, `ch`, `sh` → `es`; `Endpoints` stays.
 * @example pluralOf('NetworkPolicy') === 'networkpolicies'
 */
export function pluralOf(kind: string): string {
  const k = kind.toLowerCase();
  if (k === 'endpoints') return k;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(k)) return `${k}es`;
  return `${k}s`;
}

/** The collection path of a resource: `/api/v1/namespaces/ns/pods` or `/apis/g/v/widgets`. */
export function collectionPath(ref: ResourceRef): string {
  // `as`: plain JavaScript callers can pass anything, null or an object without these fields.
  if (
    typeof (ref as Partial<ResourceRef> | null | undefined)?.apiVersion !== 'string' ||
    ref.apiVersion === '' ||
    typeof ref.kind !== 'string' ||
    ref.kind === ''
  ) {
    throw new UsageError(`a ResourceRef needs apiVersion and kind, got ${JSON.stringify(ref)}`);
  }
  const parts = ref.apiVersion.split('/');
  if (parts.length > 2 || parts.some((p) => p === ''))
    throw new UsageError(`malformed apiVersion ${JSON.stringify(ref.apiVersion)} for kind ${ref.kind}`);
  const base = parts.length === 1 ? `/api/${parts[0]}` : `/apis/${parts[0]}/${parts[1]}`;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  return `${base}${ns}/${ref.plural ?? pluralOf(ref.kind)}`;
}
