// The built-in kinds the server serves from start-up, with the scope, names and subresources of kube-apiserver 1.32.
import { resourceType, type KindSpec, type ResourceType } from './resourceType.js';

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

// Field selectors a real server accepts on core/v1 Events (`kubectl events --for` sends involvedObject ones).
const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'type',
];

type Entry = Omit<KindSpec, 'group' | 'version'>;

// One group/version's kinds; `all` marks the kinds `kubectl get all` lists, as their real storage does.
function groupVersion(group: string, version: string, entries: Entry[]): ResourceType[] {
  return entries.map((e) => resourceType({ group, version, ...e }));
}

const ALL = ['all'];

/**
 * The built-in kinds. Scopes, short names, categories and the `status` and `scale` subresources are those of
 * kube-apiserver 1.32's discovery document. Objects of two versions of one resource would share storage
 * (`storageKey`); every built-in resource is served at one version here, so none do. `events.k8s.io/v1` Events are
 * stored apart from core/v1 Events (a real server converts between the two; this one does not).
 */
export const BUILTIN_KINDS: readonly ResourceType[] = [
  ...groupVersion('', 'v1', [
    {
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      statusSubresource: true,
      nameRule: 'label',
      selectableFields: ['status.phase'],
    },
    { kind: 'Pod', namespaced: true, statusSubresource: true, shortNames: ['po'], categories: ALL, selectableFields: POD_FIELDS },
    { kind: 'Service', namespaced: true, statusSubresource: true, shortNames: ['svc'], categories: ALL, nameRule: 'dns1035Label' },
    { kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
    { kind: 'Secret', namespaced: true, selectableFields: ['type'] },
    { kind: 'Node', namespaced: false, statusSubresource: true, shortNames: ['no'], selectableFields: ['spec.unschedulable'] },
    { kind: 'Endpoints', namespaced: true, singular: 'endpoints', shortNames: ['ep'] },
    { kind: 'Event', namespaced: true, shortNames: ['ev'], selectableFields: EVENT_FIELDS },
    { kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
    { kind: 'ResourceQuota', namespaced: true, statusSubresource: true, shortNames: ['quota'] },
    { kind: 'LimitRange', namespaced: true, shortNames: ['limits'] },
    { kind: 'PersistentVolumeClaim', namespaced: true, statusSubresource: true, shortNames: ['pvc'] },
    {
      kind: 'ReplicationController',
      namespaced: true,
      statusSubresource: true,
      scaleSubresource: true,
      shortNames: ['rc'],
      categories: ALL,
      selectableFields: ['status.replicas'],
    },
  ]),
  ...groupVersion('apps', 'v1', [
    { kind: 'Deployment', namespaced: true, statusSubresource: true, scaleSubresource: true, shortNames: ['deploy'], categories: ALL },
    { kind: 'ReplicaSet', namespaced: true, statusSubresource: true, scaleSubresource: true, shortNames: ['rs'], categories: ALL },
    { kind: 'StatefulSet', namespaced: true, statusSubresource: true, scaleSubresource: true, shortNames: ['sts'], categories: ALL },
    { kind: 'DaemonSet', namespaced: true, statusSubresource: true, shortNames: ['ds'], categories: ALL },
    { kind: 'ControllerRevision', namespaced: true },
  ]),
  ...groupVersion('batch', 'v1', [
    { kind: 'Job', namespaced: true, statusSubresource: true, categories: ALL },
    { kind: 'CronJob', namespaced: true, statusSubresource: true, shortNames: ['cj'], categories: ALL },
  ]),
  ...groupVersion('autoscaling', 'v2', [
    { kind: 'HorizontalPodAutoscaler', namespaced: true, statusSubresource: true, shortNames: ['hpa'], categories: ALL },
  ]),
  ...groupVersion('networking.k8s.io', 'v1', [
    { kind: 'Ingress', namespaced: true, statusSubresource: true, shortNames: ['ing'] },
    { kind: 'IngressClass', namespaced: false },
    { kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'] },
  ]),
  ...groupVersion('rbac.authorization.k8s.io', 'v1', [
    { kind: 'Role', namespaced: true, nameRule: 'pathSegment' },
    { kind: 'RoleBinding', namespaced: true, nameRule: 'pathSegment' },
    { kind: 'ClusterRole', namespaced: false, nameRule: 'pathSegment' },
    { kind: 'ClusterRoleBinding', namespaced: false, nameRule: 'pathSegment' },
  ]),
  ...groupVersion('policy', 'v1', [{ kind: 'PodDisruptionBudget', namespaced: true, statusSubresource: true, shortNames: ['pdb'] }]),
  ...groupVersion('discovery.k8s.io', 'v1', [{ kind: 'EndpointSlice', namespaced: true }]),
  ...groupVersion('events.k8s.io', 'v1', [{ kind: 'Event', namespaced: true, shortNames: ['ev'] }]),
  ...groupVersion('scheduling.k8s.io', 'v1', [{ kind: 'PriorityClass', namespaced: false, shortNames: ['pc'] }]),
  ...groupVersion('coordination.k8s.io', 'v1', [{ kind: 'Lease', namespaced: true }]),
  ...groupVersion('apiextensions.k8s.io', 'v1', [
    { kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'] },
  ]),
];
