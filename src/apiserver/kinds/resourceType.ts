// Resource types: what one servable resource at one group/version is, and how one is derived from a kind.
import { defaultPlural } from './plural.js';

/**
 * Which rule an object's name must follow: a DNS-1123 subdomain (most kinds), a DNS-1123 label (Namespace), a
 * DNS-1035 label (Service: it becomes a DNS name and must start with a letter) or a path segment (RBAC kinds,
 * whose names such as `system:controller:x` only have to fit in a URL).
 */
export type NameRule = 'subdomain' | 'label' | 'dns1035Label' | 'pathSegment';

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
  /** Whether a `/scale` subresource (an autoscaling/v1 `Scale` over `spec.replicas`) exists. */
  readonly scaleSubresource: boolean;
  /** The rule `metadata.name` must follow. */
  readonly nameRule: NameRule;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Field selector keys accepted beyond `metadata.name` and `metadata.namespace`. */
  readonly selectableFields: readonly string[];
  /** True for kinds defined by a CustomResourceDefinition. */
  readonly custom: boolean;
  /** Where the objects live in the store: `group/plural`, shared by every version. */
  readonly storageKey: string;
}

/** Fields of a resource type that differ between kinds; everything else is derived. */
export interface KindSpec {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  plural?: string;
  singular?: string;
  statusSubresource?: boolean;
  scaleSubresource?: boolean;
  nameRule?: NameRule;
  shortNames?: string[];
  categories?: string[];
  selectableFields?: string[];
  custom?: boolean;
}

/** Fills in the derived fields of a resource type (groupVersion, listKind, plural, storage key). */
export function resourceType(spec: KindSpec): ResourceType {
  const plural = spec.plural ?? defaultPlural(spec.kind);
  return {
    group: spec.group,
    version: spec.version,
    groupVersion: spec.group ? `${spec.group}/${spec.version}` : spec.version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural,
    singular: spec.singular ?? spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    statusSubresource: spec.statusSubresource ?? false,
    scaleSubresource: spec.scaleSubresource ?? false,
    nameRule: spec.nameRule ?? 'subdomain',
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    selectableFields: spec.selectableFields ?? [],
    custom: spec.custom ?? false,
    storageKey: `${spec.group}/${plural}`,
  };
}
