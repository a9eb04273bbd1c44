import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap, type V1Lease } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../src/apiserver/index.js';
import { expectApiError, request, type StatusBody, serverForSuite } from './helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

describe('startApiServer', () => {
  const suite = serverForSuite();

  it('should listen on 127.0.0.1 and serve the usual namespaces', async () => {
    expect(suite.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = await suite.core.listNamespace();
    expect(list.items.map((n) => n.metadata!.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(list.items[0]!.status!.phase).toBe('Active');
    expect(list.items[0]!.metadata!.labels).toEqual({ 'kubernetes.io/metadata.name': 'default' });
    expect(list.metadata!.resourceVersion).toBe(suite.server.resourceVersion());
  });

  it('should create, read, replace, patch and delete a ConfigMap', async () => {
    const created = await suite.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'crud', labels: { a: '1' } }, data: { k: 'v' } },
    });
    expect(created.metadata!.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata!.generation).toBe(1);
    expect(created.metadata!.creationTimestamp).toBeInstanceOf(Date);
    expect(created.kind).toBe('ConfigMap');
    expect(created.apiVersion).toBe('v1');

    const read = await suite.core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' });
    expect(read.data).toEqual({ k: 'v' });
    expect(read.metadata!.resourceVersion).toBe(created.metadata!.resourceVersion);

    const replaced = await suite.core.replaceNamespacedConfigMap({
      name: 'crud',
      namespace: 'default',
      body: { ...read, data: { k: 'v2' } },
    });
    expect(replaced.data).toEqual({ k: 'v2' });
    expect(replaced.metadata!.generation).toBe(2);
    expect(replaced.metadata!.uid).toBe(created.metadata!.uid);

    const merged = await suite.core.patchNamespacedConfigMap(
      { name: 'crud', namespace: 'default', body: { metadata: { labels: { b: '2' } }, data: { x: 'y' } } },
      merge,
    );
    expect(merged.metadata!.labels).toEqual({ a: '1', b: '2' });
    expect(merged.data).toEqual({ k: 'v2', x: 'y' });

    const patched = await suite.core.patchNamespacedConfigMap(
      {
        name: 'crud',
        namespace: 'default',
        body: [
          { op: 'remove', path: '/data/x' },
          { op: 'add', path: '/metadata/annotations', value: { n: 'o' } },
        ],
      },
      jsonPatch,
    );
    expect(patched.data).toEqual({ k: 'v2' });
    expect(patched.metadata!.annotations).toEqual({ n: 'o' });

    const smp = await suite.core.patchNamespacedConfigMap(
      { name: 'crud', namespace: 'default', body: { data: { k: null, z: '1' } } },
      strategic,
    );
    expect(smp.data).toEqual({ z: '1' });

    await suite.core.deleteNamespacedConfigMap({ name: 'crud', namespace: 'default' });
    await expectApiError(suite.core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' }), 404, 'NotFound');
  });

  it('should hand out strictly increasing resourceVersions from one counter across kinds', async () => {
    const rvs: number[] = [];
    for (let i = 0; i < 3; i++) {
      rvs.push(
        Number(
          (await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `mono-${i}` } } })).metadata!
            .resourceVersion,
        ),
      );
      rvs.push(
        Number(
          (await suite.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: `mono-${i}` } } })).metadata!
            .resourceVersion,
        ),
      );
    }
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1]!);
    const list = await suite.core.listNamespacedSecret({ namespace: 'default' });
    expect(list.metadata!.resourceVersion).toBe(String(rvs[rvs.length - 1]));
  });

  it('should answer 404 for a namespace that does not exist', async () => {
    const status = await expectApiError(
      suite.core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }),
      404,
      'NotFound',
    );
    expect(status.message).toBe('namespaces "nowhere" not found');
  });

  it('should answer 400 to an undecodable body and 404/405 to unknown paths and methods', async () => {
    const bad = await request<StatusBody>(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: '{not json' });
    expect(bad.status).toBe(400);
    expect(bad.json.reason).toBe('BadRequest');
    const unknown = await request(suite.server.url, 'GET', '/api/v1/namespaces/default/frobs');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, metadata: {} });
    expect((await request(suite.server.url, 'GET', '/apis/nope.example.com/v1')).status).toBe(404);
    expect((await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps/x')).status).toBe(405);
    expect((await request(suite.server.url, 'POST', '/api/v1/configmaps', { body: { metadata: { name: 'x' } } })).status).toBe(405);
    const proto = await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'k8s\u0000',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    // Protobuf is decoded now: the prefix alone is a malformed body. CBOR is still not taken.
    expect(proto.status).toBe(400);
    expect((proto.json as StatusBody).message).toContain('nothing after it');
    const cbor = await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: '\u00a0',
      contentType: 'application/cbor',
    });
    expect(cbor.status).toBe(415);
  });

  it('should accept JSON and block YAML under a YAML media type, and refuse several documents with 400', async () => {
    const json = await request(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: '{"metadata":{"name":"yamlish"}}',
      contentType: 'application/yaml',
    });
    expect(json.status).toBe(201);
    const yaml = await request<V1ConfigMap>(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'metadata:\n  name: yml\ndata:\n  a: "1"\n',
      contentType: 'application/yaml',
    });
    expect([yaml.status, yaml.json.metadata!.name, yaml.json.data]).toEqual([201, 'yml', { a: '1' }]);
    const two = await request<StatusBody>(suite.server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'metadata:\n  name: y1\n---\nmetadata:\n  name: y2\n',
      contentType: 'application/yaml',
    });
    expect([two.status, two.json.reason]).toEqual([400, 'BadRequest']);
    expect(two.json.message).toContain('it holds 2 documents');
  });

  it('should fold Secret stringData into base64 data', async () => {
    const secret = await suite.core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'bee' } },
    });
    expect(secret.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64') });
    expect(secret.stringData).toBeUndefined();
  });

  it('should serve /version and health checks', async () => {
    expect((await request(suite.server.url, 'GET', '/version')).json).toMatchObject({ major: '1', minor: '32' });
    expect((await request(suite.server.url, 'GET', '/healthz')).json).toBe('ok');
  });

  it('should serve cluster-scoped Nodes and Namespaces', async () => {
    // Node status goes through its subresource, as a kubelet writes it.
    const node = await suite.core.createNode({ body: { metadata: { name: 'n1', labels: { zone: 'a' } } } });
    expect(node.metadata!.namespace).toBeUndefined();
    const ready = await suite.core.patchNodeStatus(
      { name: 'n1', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } },
      merge,
    );
    expect(ready.status!.conditions![0]!.type).toBe('Ready');
    const nodes = await suite.core.listNode({ labelSelector: 'zone=a' });
    expect(nodes.items.map((n) => n.metadata!.name)).toEqual(['n1']);
    await suite.core.patchNode({ name: 'n1', body: { spec: { unschedulable: true } } }, merge);
    expect((await suite.core.listNode({ fieldSelector: 'spec.unschedulable=true' })).items).toHaveLength(1);
    await suite.core.deleteNode({ name: 'n1' });
    await expectApiError(suite.core.readNode({ name: 'n1' }), 404);
  });

  it('should keep pod status behind the status subresource', async () => {
    const pod = await suite.core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'sp' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } },
    });
    expect(pod.status!.phase).toBe('Pending');
    // Through the main resource, status is ignored.
    const main = await suite.core.patchNamespacedPod(
      { name: 'sp', namespace: 'default', body: { status: { phase: 'Failed' }, metadata: { labels: { l: '1' } } } },
      merge,
    );
    expect(main.status!.phase).toBe('Pending');
    expect(main.metadata!.labels).toEqual({ l: '1' });
    // Through /status, only status changes.
    const viaStatus = await suite.core.patchNamespacedPodStatus(
      { name: 'sp', namespace: 'default', body: { status: { phase: 'Running' }, metadata: { labels: { l: '2' } } } },
      merge,
    );
    expect(viaStatus.status!.phase).toBe('Running');
    expect(viaStatus.metadata!.labels).toEqual({ l: '1' });
    expect(viaStatus.metadata!.generation).toBe(1);
    const read = await suite.core.readNamespacedPodStatus({ name: 'sp', namespace: 'default' });
    expect(read.status!.phase).toBe('Running');
    const replaced = await suite.core.replaceNamespacedPodStatus({
      name: 'sp',
      namespace: 'default',
      body: { ...read, spec: { containers: [{ name: 'x', image: 'y' }] }, status: { phase: 'Succeeded' } },
    });
    expect(replaced.status!.phase).toBe('Succeeded');
    expect(replaced.spec!.containers[0]!.name).toBe('c');
    expect((await suite.core.listNamespacedPod({ namespace: 'default', fieldSelector: 'status.phase=Succeeded' })).items).toHaveLength(1);
  });

  it('should answer 404 for the status subresource of kinds without one', async () => {
    await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'nostatus' } } });
    expect((await request(suite.server.url, 'GET', '/api/v1/namespaces/default/configmaps/nostatus/status')).status).toBe(404);
  });

  it('should refuse malformed patches: an empty body, a bad JSON patch, an apply patch without its type', async () => {
    await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'patched' }, data: { a: '1' } } });
    const path = '/api/v1/namespaces/default/configmaps/patched';
    const send = (body: unknown, contentType: string) => request(suite.server.url, 'PATCH', path, { body, contentType });
    expect((await send('', 'application/merge-patch+json')).status).toBe(400);
    expect((await send([{ op: 'add', path: 'data/b', value: '2' }], 'application/json-patch+json')).status).toBe(422);
    expect((await send(['not an operation'], 'application/json-patch+json')).status).toBe(400);
    expect((await send([{ op: 'add', value: '2' }], 'application/json-patch+json')).status).toBe(400);
    expect((await send([{ op: 'remove', path: '' }], 'application/json-patch+json')).status).toBe(422);
    expect((await send([{ op: 'add', path: '/data/a/x', value: '2' }], 'application/json-patch+json')).status).toBe(422);
    const apply = (body: unknown) =>
      request(suite.server.url, 'PATCH', `${path}?fieldManager=t`, { body, contentType: 'application/apply-patch+yaml' });
    expect((await apply(['a list'])).status).toBe(400);
    expect((await apply({ metadata: { name: 'patched' } })).status).toBe(400);
    expect((await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } })).status).toBe(400);
    // A JSON patch that works, on an array element: nothing above changed the object.
    const ok = await send(
      [
        { op: 'add', path: '/metadata/finalizers', value: ['x/y'] },
        { op: 'replace', path: '/metadata/finalizers/0', value: 'x/z' },
      ],
      'application/json-patch+json',
    );
    expect(ok.status).toBe(200);
    const patched = ok.json as V1ConfigMap;
    expect(patched.metadata!.finalizers).toEqual(['x/z']);
    expect(patched.data).toEqual({ a: '1' });
    await suite.core.patchNamespacedConfigMap(
      { name: 'patched', namespace: 'default', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      jsonPatch,
    );
  });

  it('should answer 400 to malformed list and watch options, and list its root paths', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    for (const query of ['resourceVersion=abc', 'limit=1.5', 'limit=ten', 'watch=true&resourceVersion=abc']) {
      const res = await request<StatusBody>(suite.server.url, 'GET', `${cms}?${query}`);
      expect([query, res.status, res.json.reason]).toEqual([query, 400, 'BadRequest']);
    }
    const root = await request<{ paths: string[] }>(suite.server.url, 'GET', '/');
    expect(root.json.paths).toEqual(expect.arrayContaining(['/api', '/api/v1', '/apis', '/healthz', '/version']));
    expect((await request(suite.server.url, 'POST', '/', { body: {} })).status).toBe(405);
  });

  it('should not store anything on dryRun', async () => {
    const before = suite.server.resourceVersion();
    const dry = await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'dry' } }, dryRun: 'All' });
    expect(dry.metadata!.name).toBe('dry');
    await expectApiError(suite.core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }), 404);
    expect(suite.server.resourceVersion()).toBe(before);
  });

  it('should serve Endpoints under the irregular plural', async () => {
    await suite.core.createNamespacedEndpoints({ namespace: 'default', body: { metadata: { name: 'ep' }, subsets: [] } });
    expect((await request<{ kind: string }>(suite.server.url, 'GET', '/api/v1/namespaces/default/endpoints/ep')).json.kind).toBe(
      'Endpoints',
    );
  });

  it('should record field managers', async () => {
    const cm = await suite.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'mf' }, data: { a: '1' } },
      fieldManager: 'tester',
    });
    expect(cm.metadata!.managedFields).toEqual([
      expect.objectContaining({ manager: 'tester', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }),
    ]);
  });
});

describe('Leases (coordination.k8s.io/v1)', () => {
  let server: ApiServer;
  let leases: CoordinationV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    leases = server.kubeConfig().makeApiClient(CoordinationV1Api);
  });
  afterAll(() => server.close());

  it('should support the optimistic-concurrency dance of leader election', async () => {
    const body: V1Lease = {
      metadata: { name: 'leader', namespace: 'kube-system' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
    };
    const created = await leases.createNamespacedLease({ namespace: 'kube-system', body });
    expect(created.apiVersion).toBe('coordination.k8s.io/v1');
    const read = await leases.readNamespacedLease({ name: 'leader', namespace: 'kube-system' });
    // Two candidates try to take over from the same read: one wins, the other gets 409.
    const winner = await leases.replaceNamespacedLease({
      name: 'leader',
      namespace: 'kube-system',
      body: { ...read, spec: { ...read.spec, holderIdentity: 'b' } },
    });
    expect(winner.spec!.holderIdentity).toBe('b');
    await expectApiError(
      leases.replaceNamespacedLease({
        name: 'leader',
        namespace: 'kube-system',
        body: { ...read, spec: { ...read.spec, holderIdentity: 'c' } },
      }),
      409,
      'Conflict',
    );
    const renewed = await leases.patchNamespacedLease(
      { name: 'leader', namespace: 'kube-system', body: { spec: { leaseTransitions: 1 } } },
      merge,
    );
    expect(renewed.spec!.leaseTransitions).toBe(1);
    const all = await leases.listLeaseForAllNamespaces();
    expect(all.items.map((l) => l.metadata!.name)).toEqual(['leader']);
    await leases.deleteNamespacedLease({ name: 'leader', namespace: 'kube-system' });
  });
});

describe('ApiServer.close', () => {
  it('should stop serving and be idempotent', async () => {
    const server = await startApiServer();
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    const cm: V1ConfigMap = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c' } } });
    expect(cm.metadata!.name).toBe('c');
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${server.url}/api`)).rejects.toThrow();
  });
});
