import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  AutoscalingV2Api,
  BatchV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  EventsV1Api,
  KubernetesObjectApi,
  NetworkingV1Api,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  SchedulingV1Api,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { BUILTIN_KINDS } from '../../../src/apiserver/kinds/builtinKinds.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { request, waitFor } from '../helpers.js';

// What kube-apiserver 1.32 advertises for each kind: [groupVersion, plural, kind, namespaced, shortNames, categories, subresources].
const REAL_DISCOVERY: Array<[string, string, string, boolean, string[], string[], string[]]> = [
  ['v1', 'namespaces', 'Namespace', false, ['ns'], [], ['status']],
  ['v1', 'pods', 'Pod', true, ['po'], ['all'], ['status']],
  ['v1', 'services', 'Service', true, ['svc'], ['all'], ['status']],
  ['v1', 'configmaps', 'ConfigMap', true, ['cm'], [], []],
  ['v1', 'secrets', 'Secret', true, [], [], []],
  ['v1', 'nodes', 'Node', false, ['no'], [], ['status']],
  ['v1', 'endpoints', 'Endpoints', true, ['ep'], [], []],
  ['v1', 'events', 'Event', true, ['ev'], [], []],
  ['v1', 'serviceaccounts', 'ServiceAccount', true, ['sa'], [], []],
  ['v1', 'resourcequotas', 'ResourceQuota', true, ['quota'], [], ['status']],
  ['v1', 'limitranges', 'LimitRange', true, ['limits'], [], []],
  ['v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc'], [], ['status']],
  ['v1', 'replicationcontrollers', 'ReplicationController', true, ['rc'], ['all'], ['status', 'scale']],
  ['apps/v1', 'deployments', 'Deployment', true, ['deploy'], ['all'], ['status', 'scale']],
  ['apps/v1', 'replicasets', 'ReplicaSet', true, ['rs'], ['all'], ['status', 'scale']],
  ['apps/v1', 'statefulsets', 'StatefulSet', true, ['sts'], ['all'], ['status', 'scale']],
  ['apps/v1', 'daemonsets', 'DaemonSet', true, ['ds'], ['all'], ['status']],
  ['apps/v1', 'controllerrevisions', 'ControllerRevision', true, [], [], []],
  ['batch/v1', 'jobs', 'Job', true, [], ['all'], ['status']],
  ['batch/v1', 'cronjobs', 'CronJob', true, ['cj'], ['all'], ['status']],
  ['autoscaling/v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, ['hpa'], ['all'], ['status']],
  ['networking.k8s.io/v1', 'ingresses', 'Ingress', true, ['ing'], [], ['status']],
  ['networking.k8s.io/v1', 'ingressclasses', 'IngressClass', false, [], [], []],
  ['networking.k8s.io/v1', 'networkpolicies', 'NetworkPolicy', true, ['netpol'], [], []],
  ['rbac.authorization.k8s.io/v1', 'roles', 'Role', true, [], [], []],
  ['rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true, [], [], []],
  ['rbac.authorization.k8s.io/v1', 'clusterroles', 'ClusterRole', false, [], [], []],
  ['rbac.authorization.k8s.io/v1', 'clusterrolebindings', 'ClusterRoleBinding', false, [], [], []],
  ['policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, ['pdb'], [], ['status']],
  ['discovery.k8s.io/v1', 'endpointslices', 'EndpointSlice', true, [], [], []],
  ['events.k8s.io/v1', 'events', 'Event', true, ['ev'], [], []],
  ['scheduling.k8s.io/v1', 'priorityclasses', 'PriorityClass', false, ['pc'], [], []],
  ['coordination.k8s.io/v1', 'leases', 'Lease', true, [], [], []],
  ['apiextensions.k8s.io/v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, ['crd', 'crds'], ['api-extensions'], []],
];

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  group?: string;
  version?: string;
  verbs: string[];
}

describe('BUILTIN_KINDS', () => {
  it('should be exactly the kinds of the real discovery table', () => {
    expect(BUILTIN_KINDS.map((rt) => `${rt.groupVersion} ${rt.plural}`).sort()).toEqual(
      REAL_DISCOVERY.map((r) => `${r[0]} ${r[1]}`).sort(),
    );
  });
});

describe('the built-in kinds through discovery and the official client', () => {
  let server: ApiServer;
  let objects: KubernetesObjectApi;
  beforeAll(async () => {
    server = await startApiServer();
    objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
  });
  afterAll(() => server.close());

  it.each(REAL_DISCOVERY)(
    'should advertise %s %s as the real server does',
    async (gv, plural, kind, namespaced, shortNames, categories, subs) => {
      const path = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
      const { json } = await request<{ resources: ApiResource[] }>(server.url, 'GET', path);
      const main = json.resources.find((r) => r.name === plural)!;
      expect(main).toMatchObject({ kind, namespaced });
      expect(main.shortNames ?? []).toEqual(shortNames);
      expect(main.categories ?? []).toEqual(categories);
      const served = json.resources.filter((r) => r.name.startsWith(`${plural}/`)).map((r) => r.name.slice(plural.length + 1));
      expect(served).toEqual(subs);
      const scale = json.resources.find((r) => r.name === `${plural}/scale`);
      if (scale) expect(scale).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      const openapi = await request<{ paths: Record<string, unknown> }>(
        server.url,
        'GET',
        `/openapi/v3/${gv === 'v1' ? 'api/v1' : `apis/${gv}`}`,
      );
      const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
      expect(openapi.json.paths[namespaced ? `${base}/namespaces/{namespace}/${plural}/{name}` : `${base}/${plural}/{name}`]).toBeDefined();
    },
  );

  it('should list every named group with its version in /apis', async () => {
    const { json } = await request<{ groups: Array<{ name: string; preferredVersion: { version: string } }> }>(server.url, 'GET', '/apis');
    const groups = Object.fromEntries(json.groups.map((g) => [g.name, g.preferredVersion.version]));
    expect(groups).toMatchObject({
      apps: 'v1',
      batch: 'v1',
      autoscaling: 'v2',
      'networking.k8s.io': 'v1',
      'rbac.authorization.k8s.io': 'v1',
      policy: 'v1',
      'discovery.k8s.io': 'v1',
      'events.k8s.io': 'v1',
      'scheduling.k8s.io': 'v1',
    });
  });

  it.each(REAL_DISCOVERY.filter((r) => !['namespaces', 'customresourcedefinitions'].includes(r[1])))(
    'should create, get, list, watch and delete %s %s through KubernetesObjectApi',
    async (gv, plural, kind, namespaced) => {
      const name = `${plural.slice(0, 10)}-x`;
      const metadata = namespaced ? { name, namespace: 'default' } : { name };
      const seen: string[] = [];
      const watch = await new Watch(server.kubeConfig()).watch(
        `${gv === 'v1' ? '/api/v1' : `/apis/${gv}`}/${plural}`,
        {},
        (type, obj: KubernetesObject) => seen.push(`${type} ${obj.metadata!.name}`),
        () => undefined,
      );
      const created: KubernetesObject = await objects.create({ apiVersion: gv, kind, metadata, ...minimalBody(kind) });
      expect(created.metadata!.generation).toBe(1);
      const read: KubernetesObject = await objects.read({ apiVersion: gv, kind, metadata });
      expect(read.metadata!.uid).toBe(created.metadata!.uid);
      const list = await objects.list(gv, kind, namespaced ? 'default' : undefined);
      expect(list.items.map((o) => o.metadata!.name)).toContain(name);
      await objects.delete({ apiVersion: gv, kind, metadata });
      await waitFor(() => seen.includes(`DELETED ${name}`), `the DELETED event of ${plural}`);
      expect(seen.filter((e) => e.endsWith(` ${name}`))).toEqual([`ADDED ${name}`, `DELETED ${name}`]);
      watch.abort();
    },
  );

  it('should serve the typed clients of every new group', async () => {
    const kc = server.kubeConfig();
    const ns = 'default';
    const selector = { matchLabels: { app: 'a' } };
    await kc
      .makeApiClient(NetworkingV1Api)
      .createNamespacedIngress({ namespace: ns, body: { metadata: { name: 'ing' }, spec: { ingressClassName: 'nginx' } } });
    await kc
      .makeApiClient(NetworkingV1Api)
      .createNamespacedNetworkPolicy({ namespace: ns, body: { metadata: { name: 'np' }, spec: { podSelector: {} } } });
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: { metadata: { name: 'system:reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'rb' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:reader' },
        subjects: [],
      },
    });
    await kc
      .makeApiClient(PolicyV1Api)
      .createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'pdb' }, spec: { selector, minAvailable: 1 } } });
    await kc
      .makeApiClient(DiscoveryV1Api)
      .createNamespacedEndpointSlice({ namespace: ns, body: { metadata: { name: 'es' }, addressType: 'IPv4', endpoints: [] } });
    await kc
      .makeApiClient(EventsV1Api)
      .createNamespacedEvent({ namespace: ns, body: { metadata: { name: 'ev' }, eventTime: new Date(), reason: 'Test' } });
    await kc.makeApiClient(SchedulingV1Api).createPriorityClass({ body: { metadata: { name: 'high' }, value: 1000 } });
    const hpa = kc.makeApiClient(AutoscalingV2Api);
    await hpa.createNamespacedHorizontalPodAutoscaler({
      namespace: ns,
      body: {
        metadata: { name: 'hpa' },
        spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } },
      },
    });
    const status = await hpa.replaceNamespacedHorizontalPodAutoscalerStatus({
      name: 'hpa',
      namespace: ns,
      body: {
        ...(await hpa.readNamespacedHorizontalPodAutoscaler({ name: 'hpa', namespace: ns })),
        status: { currentReplicas: 2, desiredReplicas: 2 },
      },
    });
    expect(status.status!.currentReplicas).toBe(2);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'sa' } } });
    await core.createNamespacedResourceQuota({ namespace: ns, body: { metadata: { name: 'q' }, spec: { hard: { pods: '10' } } } });
    await core.createNamespacedLimitRange({ namespace: ns, body: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container' }] } } });
    const pvc = await core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: { metadata: { name: 'pvc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    });
    expect(pvc.spec!.volumeMode).toBe('Filesystem');
    expect(pvc.status!.phase).toBe('Pending');
    await core.createNamespacedEvent({
      namespace: ns,
      body: { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started' },
    });
    const events = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.kind=Pod,involvedObject.name=p' });
    expect(events.items.map((e) => e.metadata!.name)).toEqual(['e1']);
    const secret = await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' } } });
    expect(secret.type).toBe('Opaque');
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedControllerRevision({ namespace: ns, body: { metadata: { name: 'cr' }, revision: 1 } });
    const batch = kc.makeApiClient(BatchV1Api);
    expect((await batch.listNamespacedJob({ namespace: ns })).items).toEqual([]);
  });

  it('should keep status behind the subresource for Services and Namespaces', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const svc = await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'lb' },
        spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      },
    });
    expect(svc.status?.loadBalancer?.ingress).toBeUndefined();
    const withLb = await core.replaceNamespacedServiceStatus({
      name: 'lb',
      namespace: 'default',
      body: { ...svc, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } },
    });
    expect(withLb.status!.loadBalancer!.ingress).toEqual([{ ip: '1.2.3.4', ipMode: 'VIP' }]);
    const ns = await core.readNamespaceStatus({ name: 'default' });
    expect(ns.status!.phase).toBe('Active');
  });

  it('should answer 404 for a scale subresource on a kind without one', async () => {
    const apps = server.kubeConfig().makeApiClient(AppsV1Api);
    await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: {
        metadata: { name: 'ds' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [] } } },
      },
    });
    expect((await request(server.url, 'GET', '/apis/apps/v1/namespaces/default/daemonsets/ds/scale')).status).toBe(404);
    expect((await request(server.url, 'GET', '/apis/apps/v1/namespaces/default/daemonsets/ds')).status).toBe(200);
  });
});

// The least each kind needs to be a sensible object (the server validates no spec, but the tests should read true).
function minimalBody(kind: string): Record<string, unknown> {
  const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'img' }] } };
  const selector = { matchLabels: { app: 'x' } };
  switch (kind) {
    case 'Pod':
      return { spec: template.spec };
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
      return { spec: { selector, template } };
    case 'StatefulSet':
      return { spec: { selector, serviceName: 'x', template } };
    case 'ReplicationController':
      return { spec: { template } };
    case 'Job':
      return { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } };
    case 'CronJob':
      return { spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } } } };
    case 'Service':
      return { spec: { ports: [{ port: 80 }] } };
    case 'ConfigMap':
      return { data: { a: 'b' } };
    case 'Role':
    case 'ClusterRole':
      return { rules: [] };
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } };
    case 'PriorityClass':
      return { value: 10 };
    case 'EndpointSlice':
      return { addressType: 'IPv4', endpoints: [] };
    case 'ControllerRevision':
      return { revision: 1 };
    case 'HorizontalPodAutoscaler':
      return { spec: { maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'x' } } };
    default:
      return {};
  }
}
