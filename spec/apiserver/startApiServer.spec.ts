import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap, type V1Lease } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../src/apiserver/index.js';
import { expectApiError, request, type StatusBody } from './helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

describe('startApiServer', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  it('should listen on 127.0.0.1 and serve the usual namespaces', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata!.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(list.items[0]!.status!.phase).toBe('Active');
    expect(list.items[0]!.metadata!.labels).toEqual({ 'kubernetes.io/metadata.name': 'default' });
    expect(list.metadata!.resourceVersion).toBe(server.resourceVersion());
  });

  it('should create, read, replace, patch and delete a ConfigMap', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'crud', labels: { a: '1' } }, data: { k: 'v' } },
    });
    expect(created.metadata!.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata!.generation).toBe(1);
    expect(created.metadata!.creationTimestamp).toBeInstanceOf(Date);
    expect(created.kind).toBe('ConfigMap');
    expect(created.apiVersion).toBe('v1');

    const read = await core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' });
    expect(read.data).toEqual({ k: 'v' });
    expect(read.metadata!.resourceVersion).toBe(created.metadata!.resourceVersion);

    const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: 'default', body: { ...read, data: { k: 'v2' } } });
    expect(replaced.data).toEqual({ k: 'v2' });
    expect(replaced.metadata!.generation).toBe(2);
    expect(replaced.metadata!.uid).toBe(created.metadata!.uid);

    const merged = await core.patchNamespacedConfigMap(
      { name: 'crud', namespace: 'default', body: { metadata: { labels: { b: '2' } }, data: { x: 'y' } } },
      merge,
    );
    expect(merged.metadata!.labels).toEqual({ a: '1', b: '2' });
    expect(merged.data).toEqual({ k: 'v2', x: 'y' });

    const patched = await core.patchNamespacedConfigMap(
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

    const smp = await core.patchNamespacedConfigMap({ name: 'crud', namespace: 'default', body: { data: { k: null, z: '1' } } }, strategic);
    expect(smp.data).toEqual({ z: '1' });

    await core.deleteNamespacedConfigMap({ name: 'crud', namespace: 'default' });
    await expectApiError(core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' }), 404, 'NotFound');
  });

  it('should return the deleted object from DELETE with a new resourceVersion', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'del' } } });
    const res = await request<{ metadata: { name: string; resourceVersion: string } }>(
      server.url,
      'DELETE',
      '/api/v1/namespaces/default/configmaps/del',
    );
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe('del');
    expect(Number(res.json.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata!.resourceVersion));
    expect(res.json.metadata.resourceVersion).toBe(server.resourceVersion());
  });

  it('should give a re-created object a new uid', async () => {
    const first = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'again' } } });
    await core.deleteNamespacedConfigMap({ name: 'again', namespace: 'default' });
    const second = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'again' } } });
    expect(second.metadata!.uid).not.toBe(first.metadata!.uid);
  });

  it('should hand out strictly increasing resourceVersions from one counter across kinds', async () => {
    const rvs: number[] = [];
    for (let i = 0; i < 3; i++) {
      rvs.push(
        Number(
          (await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `mono-${i}` } } })).metadata!
            .resourceVersion,
        ),
      );
      rvs.push(
        Number(
          (await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: `mono-${i}` } } })).metadata!
            .resourceVersion,
        ),
      );
    }
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1]!);
    const list = await core.listNamespacedSecret({ namespace: 'default' });
    expect(list.metadata!.resourceVersion).toBe(String(rvs[rvs.length - 1]));
  });

  it('should answer 409 Conflict to a PUT with a stale resourceVersion and accept an empty one', async () => {
    const v1 = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'occ' }, data: { n: '1' } } });
    await core.replaceNamespacedConfigMap({ name: 'occ', namespace: 'default', body: { ...v1, data: { n: '2' } } });
    const status = await expectApiError(
      core.replaceNamespacedConfigMap({ name: 'occ', namespace: 'default', body: { ...v1, data: { n: '3' } } }),
      409,
      'Conflict',
    );
    expect(status.message).toContain('the object has been modified');
    const unconditional = await core.replaceNamespacedConfigMap({
      name: 'occ',
      namespace: 'default',
      body: { metadata: { name: 'occ', resourceVersion: '' }, data: { n: '4' } },
    });
    expect(unconditional.data).toEqual({ n: '4' });
    // A merge patch carrying a stale resourceVersion is a conditional write too.
    await expectApiError(
      core.patchNamespacedConfigMap(
        { name: 'occ', namespace: 'default', body: { metadata: { resourceVersion: v1.metadata!.resourceVersion }, data: { n: '5' } } },
        merge,
      ),
      409,
      'Conflict',
    );
  });

  it('should answer 409 AlreadyExists to creating a taken name', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'taken' } } });
    const status = await expectApiError(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'taken' } } }),
      409,
      'AlreadyExists',
    );
    expect(status.message).toBe('configmaps "taken" already exists');
  });

  it('should answer 404 for a namespace that does not exist', async () => {
    const status = await expectApiError(
      core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }),
      404,
      'NotFound',
    );
    expect(status.message).toBe('namespaces "nowhere" not found');
  });

  it('should answer 422 Invalid for a missing name, a bad name or a wrong kind', async () => {
    const missing = await expectApiError(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: {} } }), 422, 'Invalid');
    expect(missing.details!.causes![0]!.field).toBe('metadata.name');
    await expectApiError(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Bad_Name' } } }),
      422,
      'Invalid',
    );
    const res = await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } },
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
    const wrongVersion = await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } },
    });
    expect(wrongVersion.status).toBe(422);
  });

  it('should answer 400 to an undecodable body and 404/405 to unknown paths and methods', async () => {
    const bad = await request<StatusBody>(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: '{not json' });
    expect(bad.status).toBe(400);
    expect(bad.json.reason).toBe('BadRequest');
    const unknown = await request(server.url, 'GET', '/api/v1/namespaces/default/frobs');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, metadata: {} });
    expect((await request(server.url, 'GET', '/apis/nope.example.com/v1')).status).toBe(404);
    expect((await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps/x')).status).toBe(405);
    expect((await request(server.url, 'POST', '/api/v1/configmaps', { body: { metadata: { name: 'x' } } })).status).toBe(405);
    const proto = await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'k8s\u0000',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    // Protobuf is decoded now: the prefix alone is a malformed body. CBOR is still not taken.
    expect(proto.status).toBe(400);
    expect((proto.json as StatusBody).message).toContain('nothing after it');
    const cbor = await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: '\u00a0',
      contentType: 'application/cbor',
    });
    expect(cbor.status).toBe(415);
  });

  it('should accept JSON and block YAML under a YAML media type, and refuse several documents with 400', async () => {
    const json = await request(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: '{"metadata":{"name":"yamlish"}}',
      contentType: 'application/yaml',
    });
    expect(json.status).toBe(201);
    const yaml = await request<V1ConfigMap>(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'metadata:\n  name: yml\ndata:\n  a: "1"\n',
      contentType: 'application/yaml',
    });
    expect([yaml.status, yaml.json.metadata!.name, yaml.json.data]).toEqual([201, 'yml', { a: '1' }]);
    const two = await request<StatusBody>(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'metadata:\n  name: y1\n---\nmetadata:\n  name: y2\n',
      contentType: 'application/yaml',
    });
    expect([two.status, two.json.reason]).toEqual([400, 'BadRequest']);
    expect(two.json.message).toContain('it holds 2 documents');
  });

  it('should fold Secret stringData into base64 data', async () => {
    const secret = await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'bee' } },
    });
    expect(secret.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64') });
    expect(secret.stringData).toBeUndefined();
  });

  it('should generate names from generateName', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'gen-' } } });
    expect(cm.metadata!.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('should serve /version and health checks', async () => {
    expect((await request(server.url, 'GET', '/version')).json).toMatchObject({ major: '1', minor: '32' });
    expect((await request(server.url, 'GET', '/healthz')).json).toBe('ok');
  });

  it('should bump generation on spec changes only', async () => {
    const svc = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'gen' }, spec: { ports: [{ port: 80 }] } },
    });
    const labelled = await core.patchNamespacedService(
      { name: 'gen', namespace: 'default', body: { metadata: { labels: { x: 'y' } } } },
      merge,
    );
    expect(labelled.metadata!.generation).toBe(1);
    const respec = await core.patchNamespacedService(
      { name: 'gen', namespace: 'default', body: { spec: { ports: [{ port: 81 }] } } },
      merge,
    );
    expect(respec.metadata!.generation).toBe(2);
    expect(svc.metadata!.generation).toBe(1);
  });

  it('should not write (or bump resourceVersion) when an update changes nothing', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'noop' }, data: { a: 'b' } } });
    const before = server.resourceVersion();
    const same = await core.patchNamespacedConfigMap({ name: 'noop', namespace: 'default', body: { data: { a: 'b' } } }, merge);
    expect(same.metadata!.resourceVersion).toBe(cm.metadata!.resourceVersion);
    expect(server.resourceVersion()).toBe(before);
  });

  it('should serve cluster-scoped Nodes and Namespaces', async () => {
    // Node status goes through its subresource, as a kubelet writes it.
    const node = await core.createNode({ body: { metadata: { name: 'n1', labels: { zone: 'a' } } } });
    expect(node.metadata!.namespace).toBeUndefined();
    const ready = await core.patchNodeStatus({ name: 'n1', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } }, merge);
    expect(ready.status!.conditions![0]!.type).toBe('Ready');
    const nodes = await core.listNode({ labelSelector: 'zone=a' });
    expect(nodes.items.map((n) => n.metadata!.name)).toEqual(['n1']);
    await core.patchNode({ name: 'n1', body: { spec: { unschedulable: true } } }, merge);
    expect((await core.listNode({ fieldSelector: 'spec.unschedulable=true' })).items).toHaveLength(1);
    await core.deleteNode({ name: 'n1' });
    await expectApiError(core.readNode({ name: 'n1' }), 404);
  });

  it('should delete the contents of a deleted namespace', async () => {
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'c' } } });
    await core.createNamespacedPod({
      namespace: 'doomed',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    });
    await core.deleteNamespace({ name: 'doomed' });
    await expectApiError(core.readNamespacedConfigMap({ name: 'c', namespace: 'doomed' }), 404);
    expect((await core.listPodForAllNamespaces()).items.filter((p) => p.metadata!.namespace === 'doomed')).toEqual([]);
    await expectApiError(core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'c' } } }), 404);
  });

  it('should keep pod status behind the status subresource', async () => {
    const pod = await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'sp' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } },
    });
    expect(pod.status!.phase).toBe('Pending');
    // Through the main resource, status is ignored.
    const main = await core.patchNamespacedPod(
      { name: 'sp', namespace: 'default', body: { status: { phase: 'Failed' }, metadata: { labels: { l: '1' } } } },
      merge,
    );
    expect(main.status!.phase).toBe('Pending');
    expect(main.metadata!.labels).toEqual({ l: '1' });
    // Through /status, only status changes.
    const viaStatus = await core.patchNamespacedPodStatus(
      { name: 'sp', namespace: 'default', body: { status: { phase: 'Running' }, metadata: { labels: { l: '2' } } } },
      merge,
    );
    expect(viaStatus.status!.phase).toBe('Running');
    expect(viaStatus.metadata!.labels).toEqual({ l: '1' });
    expect(viaStatus.metadata!.generation).toBe(1);
    const read = await core.readNamespacedPodStatus({ name: 'sp', namespace: 'default' });
    expect(read.status!.phase).toBe('Running');
    const replaced = await core.replaceNamespacedPodStatus({
      name: 'sp',
      namespace: 'default',
      body: { ...read, spec: { containers: [{ name: 'x', image: 'y' }] }, status: { phase: 'Succeeded' } },
    });
    expect(replaced.status!.phase).toBe('Succeeded');
    expect(replaced.spec!.containers[0]!.name).toBe('c');
    expect((await core.listNamespacedPod({ namespace: 'default', fieldSelector: 'status.phase=Succeeded' })).items).toHaveLength(1);
  });

  it('should answer 404 for the status subresource of kinds without one', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'nostatus' } } });
    expect((await request(server.url, 'GET', '/api/v1/namespaces/default/configmaps/nostatus/status')).status).toBe(404);
  });

  it('should honour finalizers: DELETE marks, removing the last finalizer deletes', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'fin', finalizers: ['example.com/hold'] } } });
    await core.deleteNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    const marked = await core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    expect(marked.metadata!.deletionTimestamp).toBeInstanceOf(Date);
    await expectApiError(
      core.patchNamespacedConfigMap(
        { name: 'fin', namespace: 'default', body: { metadata: { finalizers: ['example.com/hold', 'more'] } } },
        merge,
      ),
      422,
    );
    await core.patchNamespacedConfigMap({ name: 'fin', namespace: 'default', body: { metadata: { finalizers: null } } }, merge);
    await expectApiError(core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' }), 404);
  });

  it('should check delete preconditions', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'pre' } } });
    await expectApiError(
      core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'default', body: { preconditions: { resourceVersion: '1' } } }),
      409,
      'Conflict',
    );
    await core.deleteNamespacedConfigMap({ name: 'pre', namespace: 'default' });
  });

  it('should refuse a PUT or DELETE that contradicts the object or its URL, and answer 404 for a missing one', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'strict' } } });
    const body = (meta: Record<string, unknown>): V1ConfigMap => ({ metadata: { name: 'strict', namespace: 'default', ...meta } });
    await expectApiError(
      core.replaceNamespacedConfigMap({ name: 'nobody', namespace: 'default', body: body({ name: 'nobody' }) }),
      404,
      'NotFound',
    );
    await expectApiError(
      core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ name: 'other' }) }),
      400,
      'BadRequest',
    );
    await expectApiError(
      core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ namespace: 'kube-system' }) }),
      400,
      'BadRequest',
    );
    await expectApiError(
      core.replaceNamespacedConfigMap({ name: 'strict', namespace: 'default', body: body({ uid: 'not-its-uid' }) }),
      409,
      'Conflict',
    );
    await expectApiError(core.deleteNamespacedConfigMap({ name: 'nobody', namespace: 'default' }), 404, 'NotFound');
    await expectApiError(
      core.deleteNamespacedConfigMap({ name: 'strict', namespace: 'default', body: { preconditions: { uid: 'not-its-uid' } } }),
      409,
      'Conflict',
    );
    // Dry runs answer as the write would, and store nothing.
    const before = server.resourceVersion();
    const dryPut = await core.replaceNamespacedConfigMap({
      name: 'strict',
      namespace: 'default',
      body: { ...body({}), data: { x: '1' } },
      dryRun: 'All',
    });
    expect(dryPut.data).toEqual({ x: '1' });
    await core.deleteNamespacedConfigMap({ name: 'strict', namespace: 'default', dryRun: 'All' });
    expect(server.resourceVersion()).toBe(before);
    expect((await core.readNamespacedConfigMap({ name: 'strict', namespace: 'default' })).metadata!.uid).toBe(created.metadata!.uid);
  });

  it('should refuse malformed patches: an empty body, a bad JSON patch, an apply patch without its type', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'patched' }, data: { a: '1' } } });
    const path = '/api/v1/namespaces/default/configmaps/patched';
    const send = (body: unknown, contentType: string) => request(server.url, 'PATCH', path, { body, contentType });
    expect((await send('', 'application/merge-patch+json')).status).toBe(400);
    expect((await send([{ op: 'add', path: 'data/b', value: '2' }], 'application/json-patch+json')).status).toBe(422);
    expect((await send(['not an operation'], 'application/json-patch+json')).status).toBe(400);
    expect((await send([{ op: 'add', value: '2' }], 'application/json-patch+json')).status).toBe(400);
    expect((await send([{ op: 'remove', path: '' }], 'application/json-patch+json')).status).toBe(422);
    expect((await send([{ op: 'add', path: '/data/a/x', value: '2' }], 'application/json-patch+json')).status).toBe(422);
    const apply = (body: unknown) =>
      request(server.url, 'PATCH', `${path}?fieldManager=t`, { body, contentType: 'application/apply-patch+yaml' });
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
    await core.patchNamespacedConfigMap(
      { name: 'patched', namespace: 'default', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      jsonPatch,
    );
  });

  it('should answer 400 to malformed list and watch options, and list its root paths', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    for (const query of ['resourceVersion=abc', 'limit=1.5', 'limit=ten', 'watch=true&resourceVersion=abc']) {
      const res = await request<StatusBody>(server.url, 'GET', `${cms}?${query}`);
      expect([query, res.status, res.json.reason]).toEqual([query, 400, 'BadRequest']);
    }
    const root = await request<{ paths: string[] }>(server.url, 'GET', '/');
    expect(root.json.paths).toEqual(expect.arrayContaining(['/api', '/api/v1', '/apis', '/healthz', '/version']));
    expect((await request(server.url, 'POST', '/', { body: {} })).status).toBe(405);
  });

  it('should not store anything on dryRun', async () => {
    const before = server.resourceVersion();
    const dry = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'dry' } }, dryRun: 'All' });
    expect(dry.metadata!.name).toBe('dry');
    await expectApiError(core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }), 404);
    expect(server.resourceVersion()).toBe(before);
  });

  it('should serve Endpoints under the irregular plural', async () => {
    await core.createNamespacedEndpoints({ namespace: 'default', body: { metadata: { name: 'ep' }, subsets: [] } });
    expect((await request<{ kind: string }>(server.url, 'GET', '/api/v1/namespaces/default/endpoints/ep')).json.kind).toBe('Endpoints');
  });

  it('should record field managers', async () => {
    const cm = await core.createNamespacedConfigMap({
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
