import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError, request, waitFor, widgetCrd, type StatusBody } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const w = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };

type Widget = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

describe('CustomResourceDefinitions', () => {
  let server: ApiServer;
  let crds: ApiextensionsV1Api;
  let co: CustomObjectsApi;
  beforeAll(async () => {
    server = await startApiServer();
    crds = server.kubeConfig().makeApiClient(ApiextensionsV1Api);
    co = server.kubeConfig().makeApiClient(CustomObjectsApi);
  });
  afterAll(() => server.close());

  it('should reject an invalid CRD with 422', async () => {
    const bad = widgetCrd();
    bad.metadata.name = 'wrong.example.com';
    await expectApiError(crds.createCustomResourceDefinition({ body: bad }), 422, 'Invalid');
    const noGroup = widgetCrd();
    noGroup.spec.group = 'nodots';
    noGroup.metadata.name = 'widgets.nodots';
    await expectApiError(crds.createCustomResourceDefinition({ body: noGroup }), 422, 'Invalid');
  });

  it('should name every invalid field of a CRD, and keep group and scope immutable', async () => {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const gizmos = (spec: Record<string, unknown>, name = 'gizmos.example.org') => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group: 'example.org',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true }],
        ...spec,
      },
    });
    const causesOf = async (body: unknown, method = 'POST', at = path): Promise<string[]> => {
      const res = await request<StatusBody>(server.url, method, at, { body });
      expect([res.status, res.json.reason]).toEqual([422, 'Invalid']);
      return (res.json.details!.causes as Array<{ field: string }>).map((c) => c.field);
    };
    expect(await causesOf(gizmos({ scope: 'Everywhere' }))).toEqual(['spec.scope']);
    expect(await causesOf(gizmos({ versions: [] }))).toEqual(['spec.versions']);
    expect(await causesOf(gizmos({ versions: [{ served: true }] }))).toEqual(['spec.versions[0].name']);
    expect(
      await causesOf(
        gizmos({
          versions: [
            { name: 'v1', storage: true },
            { name: 'v2', storage: true },
          ],
        }),
      ),
    ).toEqual(['spec.versions']);
    // The name must also be plural.group, which it no longer is.
    expect(await causesOf(gizmos({ names: { plural: 'Gizmos!' } }))).toEqual(['spec.names.plural', 'spec.names.kind', 'metadata.name']);
    // Created, then replaced with another group and scope: both immutable (the name follows the group).
    const created = await request<KubernetesObject>(server.url, 'POST', path, { body: gizmos({}) });
    expect(created.status).toBe(201);
    const changed = { ...gizmos({ scope: 'Cluster' }), metadata: created.json.metadata };
    expect(await causesOf(changed, 'PUT', `${path}/gizmos.example.org`)).toEqual(['spec.scope']);
    const regrouped = { ...gizmos({ group: 'example.com' }), metadata: created.json.metadata };
    expect(await causesOf(regrouped, 'PUT', `${path}/gizmos.example.org`)).toEqual(['metadata.name', 'spec.group']);
    expect((await request(server.url, 'DELETE', `${path}/gizmos.example.org`)).status).toBe(200);
  });

  it('should filter custom objects by the selectable fields their CRD declares', async () => {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'paints.example.net' },
      spec: {
        group: 'example.net',
        scope: 'Namespaced',
        names: { plural: 'paints', kind: 'Paint' },
        versions: [{ name: 'v1', served: true, storage: true, selectableFields: [{ jsonPath: '.spec.color' }] }],
      },
    };
    expect((await request(server.url, 'POST', path, { body: crd })).status).toBe(201);
    const paints = '/apis/example.net/v1/namespaces/default/paints';
    for (const [name, color] of [
      ['p1', 'red'],
      ['p2', 'blue'],
      ['p3', 'red'],
    ]) {
      const res = await request(server.url, 'POST', paints, {
        body: { apiVersion: 'example.net/v1', kind: 'Paint', metadata: { name }, spec: { color } },
      });
      expect(res.status).toBe(201);
    }
    const red = await request<{ items: unknown[] }>(server.url, 'GET', `${paints}?fieldSelector=${encodeURIComponent('spec.color=red')}`);
    expect((red.json.items as Widget[]).map((i) => i.metadata!.name)).toEqual(['p1', 'p3']);
    // A field the CRD does not declare is refused, as on a real server.
    expect((await request(server.url, 'GET', `${paints}?fieldSelector=${encodeURIComponent('spec.size=1')}`)).status).toBe(400);
    expect((await request(server.url, 'DELETE', `${path}/paints.example.net`)).status).toBe(200);
  });

  it('should serve the kind as soon as the create returns, with discovery and status', async () => {
    await expectApiError(co.listNamespacedCustomObject(w), 404);
    const crd = await crds.createCustomResourceDefinition({ body: widgetCrd() });
    expect(crd.status!.conditions!.map((c) => `${c.type}=${c.status}`)).toEqual(['NamesAccepted=True', 'Established=True']);
    expect(crd.status!.acceptedNames!.plural).toBe('widgets');
    const list = await co.listNamespacedCustomObject(w);
    expect(list.items).toEqual([]);
    expect(list.kind).toBe('WidgetList');
    const groups = (await request<{ groups: Array<{ name: string }> }>(server.url, 'GET', '/apis')).json;
    expect(groups.groups.map((g: { name: string }) => g.name)).toContain('example.com');
    const resources = (await request<{ resources: unknown[] }>(server.url, 'GET', '/apis/example.com/v1')).json;
    expect(resources.resources).toEqual([
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: expect.any(Array), shortNames: ['wd'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('should create, read, list, replace and delete custom objects', async () => {
    const created = (await co.createNamespacedCustomObject({
      ...w,
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', labels: { size: 'big' } }, spec: { size: 3 } },
    })) as Widget;
    expect(created.metadata!.generation).toBe(1);
    const got = (await co.getNamespacedCustomObject({ ...w, name: 'w1' })) as Widget;
    expect(got.spec).toEqual({ size: 3 });
    const listed = (await co.listNamespacedCustomObject({ ...w, labelSelector: 'size=big' })) as { items: Widget[] };
    expect(listed.items.map((i) => i.metadata!.name)).toEqual(['w1']);
    // Custom objects are listed as unstructured objects, each with its own apiVersion and kind.
    expect(listed.items.map((i) => [i.apiVersion, i.kind])).toEqual([['example.com/v1', 'Widget']]);
    const replaced = (await co.replaceNamespacedCustomObject({ ...w, name: 'w1', body: { ...got, spec: { size: 4 } } })) as Widget;
    expect(replaced.metadata!.generation).toBe(2);
    await expectApiError(co.replaceNamespacedCustomObject({ ...w, name: 'w1', body: { ...got, spec: { size: 5 } } }), 409, 'Conflict');
    await co.deleteNamespacedCustomObject({ ...w, name: 'w1' });
    await expectApiError(co.getNamespacedCustomObject({ ...w, name: 'w1' }), 404, 'NotFound');
  });

  it('should patch status by merge patch without touching spec or generation', async () => {
    await co.createNamespacedCustomObject({
      ...w,
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'st' }, spec: { size: 1 }, status: { ignored: true } },
    });
    const fresh = (await co.getNamespacedCustomObject({ ...w, name: 'st' })) as Widget;
    expect(fresh.status).toBeUndefined();
    const patched = (await co.patchNamespacedCustomObjectStatus(
      { ...w, name: 'st', body: { status: { ready: true }, spec: { size: 99 } } },
      merge,
    )) as Widget;
    expect(patched.status).toEqual({ ready: true });
    expect(patched.spec).toEqual({ size: 1 });
    expect(patched.metadata!.generation).toBe(1);
    // The main resource ignores .status.
    const main = (await co.patchNamespacedCustomObject(
      { ...w, name: 'st', body: { status: { ready: false }, spec: { size: 2 } } },
      merge,
    )) as Widget;
    expect(main.status).toEqual({ ready: true });
    expect(main.spec).toEqual({ size: 2 });
    expect(main.metadata!.generation).toBe(2);
  });

  it('should patch status by JSON patch (the client default)', async () => {
    const patched = (await co.patchNamespacedCustomObjectStatus({
      ...w,
      name: 'st',
      body: [{ op: 'replace', path: '/status/ready', value: false }],
    })) as Widget;
    expect(patched.status).toEqual({ ready: false });
  });

  it('should patch status by server-side apply, tracking field managers', async () => {
    const applied = (await co.patchNamespacedCustomObjectStatus(
      {
        ...w,
        name: 'st',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'st' }, status: { phase: 'Ok', ready: true } },
        fieldManager: 'krt-ts',
        force: true,
      },
      apply,
    )) as Widget;
    expect(applied.status).toEqual({ ready: true, phase: 'Ok' });
    const entry = applied.metadata!.managedFields!.find((m) => m.manager === 'krt-ts')!;
    expect(entry).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsType: 'FieldsV1' });
    expect(entry.fieldsV1).toEqual({ 'f:status': { 'f:phase': {}, 'f:ready': {} } });
    // Applying again without `ready` drops the field this manager no longer applies.
    const again = (await co.patchNamespacedCustomObjectStatus(
      {
        ...w,
        name: 'st',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'st' }, status: { phase: 'Ok' } },
        fieldManager: 'krt-ts',
        force: true,
      },
      apply,
    )) as Widget;
    expect(again.status).toEqual({ phase: 'Ok' });
  });

  it('should create by server-side apply and report conflicts unless forced', async () => {
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'ssa' }, spec: { size: 1, color: 'red' } };
    const res = await request(server.url, 'PATCH', '/apis/example.com/v1/namespaces/default/widgets/ssa?fieldManager=alice', {
      body,
      contentType: PatchStrategy.ServerSideApply,
    });
    expect(res.status).toBe(201);
    // bob changes color with an ordinary update: he now owns it.
    await co.patchNamespacedCustomObject({ ...w, name: 'ssa', body: { spec: { color: 'blue' } }, fieldManager: 'bob' }, merge);
    const status = await expectApiError(
      co.patchNamespacedCustomObject({ ...w, name: 'ssa', body, fieldManager: 'alice' }, apply),
      409,
      'Conflict',
    );
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "bob": .spec.color');
    const forced = (await co.patchNamespacedCustomObject({ ...w, name: 'ssa', body, fieldManager: 'alice', force: true }, apply)) as Widget;
    expect(forced.spec).toEqual({ size: 1, color: 'red' });
    expect(forced.metadata!.managedFields!.map((m) => m.manager)).toEqual(['alice']);
    await expectApiError(co.patchNamespacedCustomObject({ ...w, name: 'ssa', body }, apply), 422, 'Invalid');
  });

  it('should refuse strategic merge patches on custom resources, as a real server does', async () => {
    await expectApiError(
      co.patchNamespacedCustomObject({ ...w, name: 'ssa', body: { spec: { size: 2 } } }, strategic),
      415,
      'UnsupportedMediaType',
    );
  });

  it('should watch custom objects', async () => {
    const events: string[] = [];
    let done = false;
    const controller = await new Watch(server.kubeConfig()).watch(
      '/apis/example.com/v1/namespaces/default/widgets',
      { resourceVersion: server.resourceVersion() },
      (type, obj: Widget) => events.push(`${type} ${obj.metadata!.name}`),
      () => {
        done = true;
      },
    );
    await co.createNamespacedCustomObject({ ...w, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'watched' } } });
    await co.patchNamespacedCustomObjectStatus({ ...w, name: 'watched', body: { status: { n: 1 } } }, merge);
    await co.deleteNamespacedCustomObject({ ...w, name: 'watched' });
    await waitFor(() => events.length === 3, 'three watch events');
    expect(events).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
    controller.abort();
    await waitFor(() => done, 'watch end');
  });

  it('should serve every served version from the same objects', async () => {
    const multi = widgetCrd({ versions: ['v1', 'v2beta1'] });
    multi.metadata.name = 'gadgets.example.com';
    multi.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: [] };
    await crds.createCustomResourceDefinition({ body: multi });
    await co.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } },
    });
    const viaV2 = (await co.getNamespacedCustomObject({
      group: 'example.com',
      version: 'v2beta1',
      namespace: 'default',
      plural: 'gadgets',
      name: 'g',
    })) as Widget;
    expect(viaV2.apiVersion).toBe('example.com/v2beta1');
    const group = (await request<{ preferredVersion: { version: string } }>(server.url, 'GET', '/apis/example.com')).json;
    expect(group.preferredVersion.version).toBe('v1');
  });

  it('should serve cluster-scoped custom kinds', async () => {
    const cluster = widgetCrd({ scope: 'Cluster', status: false });
    cluster.metadata.name = 'realms.example.com';
    cluster.spec.names = { plural: 'realms', singular: 'realm', kind: 'Realm', shortNames: [] };
    await crds.createCustomResourceDefinition({ body: cluster });
    const r = (await co.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'realms',
      body: { apiVersion: 'example.com/v1', kind: 'Realm', metadata: { name: 'r' }, status: { kept: true } },
    })) as Widget;
    expect(r.metadata!.namespace).toBeUndefined();
    // Without a status subresource, status is ordinary data.
    expect(r.status).toEqual({ kept: true });
    expect((await request(server.url, 'GET', '/apis/example.com/v1/realms/r/status')).status).toBe(404);
  });

  it('should drop the kind and its objects when the CRD is deleted', async () => {
    await co.createNamespacedCustomObject({ ...w, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'last' } } });
    const events: string[] = [];
    let ended = false;
    await new Watch(server.kubeConfig()).watch(
      '/apis/example.com/v1/widgets',
      { resourceVersion: server.resourceVersion() },
      (type, obj: Widget) => events.push(`${type} ${obj.metadata!.name}`),
      () => {
        ended = true;
      },
    );
    await crds.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
    // The watch sees every object go, then ends: its kind no longer exists.
    await waitFor(() => ended, 'the end of the watch on the deleted kind');
    expect(events.sort()).toEqual(['DELETED last', 'DELETED ssa', 'DELETED st']);
    expect(server.openWatches()).toBe(0);
    await expectApiError(co.listNamespacedCustomObject(w), 404);
    // Re-creating the CRD starts from an empty collection.
    await crds.createCustomResourceDefinition({ body: widgetCrd() });
    expect(((await co.listNamespacedCustomObject(w)) as { items: unknown[] }).items).toEqual([]);
  });
});

describe('KubernetesObjectApi against the server (discovery-driven)', () => {
  let server: ApiServer;
  let objects: KubernetesObjectApi;
  beforeAll(async () => {
    server = await startApiServer();
    objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    await server.kubeConfig().makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({ body: widgetCrd() });
  });
  afterAll(() => server.close());

  it('should create, read, patch, list and delete built-in kinds', async () => {
    const cm = await objects.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'koa', namespace: 'default' },
      data: { a: '1' },
    } as KubernetesObject);
    expect(cm.metadata!.uid).toBeTruthy();
    const read = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'koa', namespace: 'default' } });
    expect((read as unknown as { data: Record<string, string> }).data).toEqual({ a: '1' });
    const patched = await objects.patch({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'koa', namespace: 'default', labels: { p: 'q' } },
    });
    expect(patched.metadata!.labels).toEqual({ p: 'q' });
    const node: KubernetesObject = await objects.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } });
    expect(node.metadata!.namespace).toBeUndefined();
    const lease = await objects.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'default' },
    });
    expect(lease.apiVersion).toBe('coordination.k8s.io/v1');
    const list = await objects.list('v1', 'ConfigMap', 'default');
    expect(list.items.map((i) => i.metadata!.name)).toEqual(['koa']);
    await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'koa', namespace: 'default' } });
    await expectApiError(objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'koa', namespace: 'default' } }), 404);
  });

  it('should resolve a CRD kind through discovery and patch it with merge patch and apply', async () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'kw', namespace: 'default' }, spec: { size: 1 } };
    await objects.create(widget);
    const merged = (await objects.patch(
      { ...widget, spec: { size: 2 } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as Widget;
    expect(merged.spec).toEqual({ size: 2 });
    const applied = (await objects.patch(
      { ...widget, spec: { size: 3, color: 'green' } },
      undefined,
      undefined,
      'kw-manager',
      true,
      PatchStrategy.ServerSideApply,
    )) as Widget;
    expect(applied.spec).toEqual({ size: 3, color: 'green' });
    const read = (await objects.read(widget)) as Widget;
    expect(read.metadata!.generation).toBe(3);
  });
});
