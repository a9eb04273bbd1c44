// The built-in kinds the server serves from start-up: a few of core/v1, Lease and CustomResourceDefinition.
import { defaultPlural } from './plural.js';
import type { ResourceType } from './types.js';

/** Fields of a resource type that differ between kinds; everything else is derived. */
export interface KindSpec {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  plural?: string;
  singular?: string;
  statusSubresource?: boolean;
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
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    selectableFields: spec.selectableFields ?? [],
    custom: spec.custom ?? false,
    storageKey: `${spec.group}/${plural}`,
  };
}

const POD_FIELDS = [
  'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork',
  'status.phase', 'status.podIP', 'status.nominatedNodeName',
];

/**
 * The built-in kinds. Only Pod has a `status` subresource among them (the API contract names Pods and
 * CRDs); Namespace, Node and Service keep `.status` writable through the main resource here, which
 * lets tests seed node conditions or service load balancers in one call.
 */
export const BUILTIN_KINDS: readonly ResourceType[] = [
  resourceType({ group: '', version: 'v1', kind: 'Namespace', namespaced: false, shortNames: ['ns'], selectableFields: ['status.phase'] }),
  resourceType({
    group: '', version: 'v1', kind: 'Pod', namespaced: true, statusSubresource: true, shortNames: ['po'],
    categories: ['all'], selectableFields: POD_FIELDS,
  }),
  resourceType({ group: '', version: 'v1', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'] }),
  resourceType({ group: '', version: 'v1', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] }),
  resourceType({ group: '', version: 'v1', kind: 'Secret', namespaced: true, selectableFields: ['type'] }),
  resourceType({ group: '', version: 'v1', kind: 'Node', namespaced: false, shortNames: ['no'], selectableFields: ['spec.unschedulable'] }),
  resourceType({ group: '', version: 'v1', kind: 'Endpoints', namespaced: true, singular: 'endpoints', shortNames: ['ep'] }),
  resourceType({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', namespaced: true }),
  resourceType({
    group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', namespaced: false,
    shortNames: ['crd', 'crds'], categories: ['api-extensions'],
  }),
];
