// The built-in kinds the server serves from start-up: a few of core/v1, Lease and CustomResourceDefinition.
import { resourceType, type ResourceType } from './resourceType.js';

const POD_FIELDS = [
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.nominatedNodeName',
];

/**
 * The built-in kinds. Only Pod has a `status` subresource among them (the API contract names Pods and
 * CRDs); Namespace, Node and Service keep `.status` writable through the main resource here, which
 * lets tests seed node conditions or service load balancers in one call.
 */
export const BUILTIN_KINDS: readonly ResourceType[] = [
  resourceType({ group: '', version: 'v1', kind: 'Namespace', namespaced: false, shortNames: ['ns'], selectableFields: ['status.phase'] }),
  resourceType({
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespaced: true,
    statusSubresource: true,
    shortNames: ['po'],
    categories: ['all'],
    selectableFields: POD_FIELDS,
  }),
  resourceType({ group: '', version: 'v1', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'] }),
  resourceType({ group: '', version: 'v1', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] }),
  resourceType({ group: '', version: 'v1', kind: 'Secret', namespaced: true, selectableFields: ['type'] }),
  resourceType({ group: '', version: 'v1', kind: 'Node', namespaced: false, shortNames: ['no'], selectableFields: ['spec.unschedulable'] }),
  resourceType({ group: '', version: 'v1', kind: 'Endpoints', namespaced: true, singular: 'endpoints', shortNames: ['ep'] }),
  resourceType({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', namespaced: true }),
  resourceType({ group: 'events.k8s.io', version: 'v1', kind: 'Event', namespaced: true, shortNames: ['ev'] }),
  resourceType({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
  }),
];
