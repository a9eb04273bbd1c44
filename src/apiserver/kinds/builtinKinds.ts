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
  // The kinds `kubectl create` makes; served plainly (no subresources, defaults or validation of their own).
  resourceType({ group: '', version: 'v1', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] }),
  resourceType({ group: '', version: 'v1', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'] }),
  resourceType({ group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'] }),
  resourceType({ group: 'batch', version: 'v1', kind: 'Job', namespaced: true, categories: ['all'] }),
  resourceType({ group: 'batch', version: 'v1', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'] }),
  resourceType({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', namespaced: true }),
  resourceType({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', namespaced: true }),
  resourceType({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', namespaced: false }),
  resourceType({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', namespaced: false }),
  resourceType({ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'] }),
  resourceType({ group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', namespaced: true, shortNames: ['ing'] }),
  resourceType({ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'] }),
  resourceType({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
  }),
];
