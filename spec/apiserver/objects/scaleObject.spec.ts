import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError, request } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const template = { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } };

describe('the scale subresource', () => {
  let server: ApiServer;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    apps = server.kubeConfig().makeApiClient(AppsV1Api);
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  it('should read a Deployment as a Scale: replicas, status replicas and the selector as text', async () => {
    const d = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }] },
          template,
        },
      },
    });
    await apps.patchNamespacedDeploymentStatus({ name: 'web', namespace: 'default', body: { status: { replicas: 1 } } }, merge);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    expect(scale).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', uid: d.metadata!.uid },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=web,tier in (edge,front)' },
    });
  });

  it('should set spec.replicas through PUT and PATCH, bumping generation, with optimistic concurrency', async () => {
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'sc' }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
    });
    const current = await apps.readNamespacedDeploymentScale({ name: 'sc', namespace: 'default' });
    const put = await apps.replaceNamespacedDeploymentScale({
      name: 'sc',
      namespace: 'default',
      body: { ...current, spec: { replicas: 3 } },
    });
    expect(put.spec!.replicas).toBe(3);
    expect(put.metadata!.resourceVersion).not.toBe(current.metadata!.resourceVersion);
    const deployment = await apps.readNamespacedDeployment({ name: 'sc', namespace: 'default' });
    expect(deployment.spec!.replicas).toBe(3);
    expect(deployment.metadata!.generation).toBe(2);
    expect(deployment.metadata!.managedFields!.map((f) => f.subresource ?? '')).toContain('scale');

    const stale = await expectApiError(
      apps.replaceNamespacedDeploymentScale({ name: 'sc', namespace: 'default', body: { ...current, spec: { replicas: 5 } } }),
      409,
      'Conflict',
    );
    expect(stale.message).toContain('deployments.apps "sc"');

    const patched = await apps.patchNamespacedDeploymentScale({ name: 'sc', namespace: 'default', body: { spec: { replicas: 0 } } }, merge);
    expect(patched.spec).toEqual({});
    expect(patched.status!.replicas).toBe(0);
    // Zero replicas leave spec.replicas out of a Scale (as on a real server), so a JSON patch adds it.
    const viaJson = await apps.patchNamespacedDeploymentScale(
      { name: 'sc', namespace: 'default', body: [{ op: 'add', path: '/spec/replicas', value: 2 }] },
      jsonPatch,
    );
    expect(viaJson.spec!.replicas).toBe(2);
    expect((await apps.readNamespacedDeployment({ name: 'sc', namespace: 'default' })).metadata!.generation).toBe(4);

    // Scaling to the replicas it has changes nothing: no new resourceVersion.
    const same = await apps.patchNamespacedDeploymentScale({ name: 'sc', namespace: 'default', body: { spec: { replicas: 2 } } }, merge);
    expect(same.metadata!.resourceVersion).toBe(viaJson.metadata!.resourceVersion);
  });

  it('should refuse negative replicas, other kinds and apply patches', async () => {
    await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: { metadata: { name: 'rs' }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
    });
    const negative = await expectApiError(
      apps.patchNamespacedReplicaSetScale({ name: 'rs', namespace: 'default', body: { spec: { replicas: -1 } } }, merge),
      422,
      'Invalid',
    );
    expect(negative.message).toBe(
      'Scale.autoscaling "rs" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    const wrongKind = await request(server.url, 'PUT', '/apis/apps/v1/namespaces/default/replicasets/rs/scale', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rs' } },
    });
    expect(wrongKind.status).toBe(400);
    const apply = await request(server.url, 'PATCH', '/apis/apps/v1/namespaces/default/replicasets/rs/scale?fieldManager=t', {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } },
      contentType: 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(415);
    await expectApiError(apps.readNamespacedReplicaSetScale({ name: 'missing', namespace: 'default' }), 404, 'NotFound');
    expect((await request(server.url, 'DELETE', '/apis/apps/v1/namespaces/default/replicasets/rs/scale')).status).toBe(405);
  });

  it('should not store a dry-run scale', async () => {
    const res = await request<{ spec: { replicas: number } }>(
      server.url,
      'PATCH',
      '/apis/apps/v1/namespaces/default/replicasets/rs/scale?dryRun=All',
      {
        body: { spec: { replicas: 7 } },
        contentType: 'application/merge-patch+json',
      },
    );
    expect(res.json.spec.replicas).toBe(7);
    expect((await apps.readNamespacedReplicaSet({ name: 'rs', namespace: 'default' })).spec!.replicas).toBe(1);
  });

  it('should scale StatefulSets and ReplicationControllers (whose selector is a label map)', async () => {
    await apps.createNamespacedStatefulSet({
      namespace: 'default',
      body: { metadata: { name: 'db' }, spec: { selector: { matchLabels: { app: 'db' } }, serviceName: 'db', template } },
    });
    expect(
      (await apps.patchNamespacedStatefulSetScale({ name: 'db', namespace: 'default', body: { spec: { replicas: 3 } } }, merge)).spec!
        .replicas,
    ).toBe(3);
    expect((await apps.readNamespacedStatefulSet({ name: 'db', namespace: 'default' })).spec!.replicas).toBe(3);
    await core.createNamespacedReplicationController({ namespace: 'default', body: { metadata: { name: 'rc' }, spec: { template } } });
    const rc = await core.readNamespacedReplicationControllerScale({ name: 'rc', namespace: 'default' });
    expect(rc.status!.selector).toBe('app=web,tier=front');
    const scaled = await core.replaceNamespacedReplicationControllerScale({
      name: 'rc',
      namespace: 'default',
      body: { ...rc, spec: { replicas: 5 } },
    });
    expect(scaled.spec!.replicas).toBe(5);
  });
});
