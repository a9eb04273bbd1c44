// What an informer stores: stripped of server bookkeeping, transformed, or metadata only.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { setLogger } from '../../src/index.js';
import { newInformer, informerStats, stripServerFields, LAST_APPLIED_ANNOTATION } from '../../src/kube/index.js';
import { Harness, Replica, requestsTo, until } from '../helpers/kube.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string, annotations?: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', annotations },
  data: { big: 'x'.repeat(100) },
});

describe('stripServerFields', () => {
  it('should drop managedFields and the last-applied annotation, keep every other annotation, and leave the object alone', () => {
    const o = {
      metadata: {
        name: 'a',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { [LAST_APPLIED_ANNOTATION]: '{}', keep: 'me' },
      },
      data: { k: 'v' },
    };
    expect(stripServerFields(o)).toEqual({ metadata: { name: 'a', annotations: { keep: 'me' } }, data: { k: 'v' } });
    expect(o.metadata.managedFields).toHaveLength(1);
    // An annotation map left empty goes too; an object with nothing to strip is returned as it is.
    expect(stripServerFields({ metadata: { name: 'b', annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } } })).toEqual({
      metadata: { name: 'b' },
    });
    const plain = { metadata: { name: 'c', annotations: { keep: 'me' } } };
    expect(stripServerFields(plain)).toBe(plain);
  });
});

describe('newInformer object shapes', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({}));
  afterAll(() => setLogger());

  it('should store objects stripped of managedFields and the last-applied annotation with stripServerFields, listed and watched', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a', { [LAST_APPLIED_ANNOTATION]: '{"x":1}' }) });
    expect(created.metadata!.managedFields?.length).toBeGreaterThan(0);
    const plain = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
    const stripped = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop(), stripServerFields: true });
    expect(await stripped.waitUntilSynced()).toBe(true);
    expect(await plain.waitUntilSynced()).toBe(true);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b', { [LAST_APPLIED_ANNOTATION]: '{}', keep: 'me' }) });
    await until(() => stripped.getKey('default/b') !== undefined && plain.getKey('default/b') !== undefined, 'b');
    for (const o of stripped.list()) {
      expect(o.metadata!.managedFields).toBeUndefined();
      expect(o.metadata!.annotations?.[LAST_APPLIED_ANNOTATION]).toBeUndefined();
      expect(o.metadata!.resourceVersion).toMatch(/^\d+$/);
    }
    expect(stripped.getKey('default/b')!.metadata!.annotations).toEqual({ keep: 'me' });
    expect(plain.getKey('default/a')!.metadata!.annotations?.[LAST_APPLIED_ANNOTATION]).toBe('{"x":1}');
    expect(plain.getKey('default/a')!.metadata!.managedFields?.length).toBeGreaterThan(0);
  });

  it('should store what transform returns, and report an object it throws on by key, keeping the rest', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('bad') });
    const transform = (o: KubernetesObject): KubernetesObject => {
      if (o.metadata?.name === 'bad') throw new Error('cannot shrink this one');
      return {
        apiVersion: o.apiVersion,
        kind: o.kind,
        metadata: { name: o.metadata!.name, namespace: o.metadata!.namespace, resourceVersion: o.metadata!.resourceVersion },
      };
    };
    const small = newInformer<KubernetesObject>(kc, CM, { stop: h.stop(), transform, name: 'small' });
    const replica = new Replica(small);
    expect(await small.waitUntilSynced()).toBe(true);
    expect(small.list().map((o) => o.metadata!.name)).toEqual(['a']);
    expect(small.getKey('default/a')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'default', resourceVersion: expect.any(String) },
    });
    expect(replica.errors).toHaveLength(1);
    expect(replica.errors[0]!.message).toMatch(/small/);
    expect(replica.errors[0]!.message).toMatch(/default\/bad/);
    expect(replica.errors[0]!.message).toMatch(/cannot shrink this one/);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
    await until(() => small.getKey('default/c') !== undefined, 'c, transformed');
    expect(Object.keys(small.getKey('default/c')!)).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it('should ask for metadata only and store PartialObjectMetadata, listed and watched', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    const meta = newInformer<KubernetesObject>(kc, CM, { stop: h.stop(), metadataOnly: true });
    const replica = new Replica(meta);
    expect(await meta.waitUntilSynced()).toBe(true);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(() => meta.getKey('default/b') !== undefined, 'b');
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'a' });
    await until(() => meta.getKey('default/a') === undefined, 'a deleted');
    for (const o of meta.list()) {
      expect(o.kind).toBe('PartialObjectMetadata');
      expect(o.apiVersion).toBe('meta.k8s.io/v1');
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    }
    expect(replica.errors).toEqual([]);
    expect(replica.violations).toEqual([]);
    expect(informerStats(meta)).toMatchObject({ lists: 1, rejected: 0 });
    expect(requestsTo(server, 'GET', /configmaps\?limit=/)).toHaveLength(1);
  });
});
