import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError, request, type StatusBody } from '../helpers.js';

/** A list as these specs read the server's answer (built-in items carry no apiVersion and kind). */
type ListBody = {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string };
  items: Array<{ apiVersion?: string; kind?: string; metadata: { resourceVersion: string } }>;
};

describe('listObjects', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer();
    core = server.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
    for (const [ns, name, labels] of [
      ['default', 'a', { app: 'web', tier: 'front' }],
      ['default', 'b', { app: 'web', tier: 'back' }],
      ['default', 'c', { app: 'db' }],
      ['default', 'd', {}],
      ['other', 'a', { app: 'web' }],
    ] as const) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: { ...labels } } } });
    }
  });
  afterAll(() => server.close());

  const names = (items: Array<{ metadata?: { name?: string; namespace?: string } }>): string[] =>
    items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`);

  it('should list one namespace or all of them, sorted', async () => {
    expect(names((await core.listNamespacedConfigMap({ namespace: 'default' })).items)).toEqual([
      'default/a',
      'default/b',
      'default/c',
      'default/d',
    ]);
    expect(names((await core.listConfigMapForAllNamespaces()).items)).toEqual([
      'default/a',
      'default/b',
      'default/c',
      'default/d',
      'other/a',
    ]);
  });

  it('should set kind, apiVersion and the counter as the list resourceVersion', async () => {
    const res = await request<ListBody>(server.url, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(res.json.kind).toBe('ConfigMapList');
    expect(res.json.apiVersion).toBe('v1');
    expect(res.json.metadata.resourceVersion).toBe(server.resourceVersion());
    for (const item of res.json.items) expect(item.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('should serve built-in list items without apiVersion and kind, as a real server does', async () => {
    // Only the list carries them; a GET of one object and a watch event carry their own.
    const res = await request<ListBody>(server.url, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(res.json.items.length).toBeGreaterThan(0);
    for (const item of res.json.items) expect([item.apiVersion, item.kind]).toEqual([undefined, undefined]);
    const one = await request<{ apiVersion: string; kind: string }>(server.url, 'GET', '/api/v1/namespaces/default/configmaps/a');
    expect([one.json.apiVersion, one.json.kind]).toEqual(['v1', 'ConfigMap']);
  });

  it('should filter by label selectors', async () => {
    const sel = async (labelSelector: string): Promise<string[]> =>
      names((await core.listConfigMapForAllNamespaces({ labelSelector })).items);
    expect(await sel('app=web')).toEqual(['default/a', 'default/b', 'other/a']);
    expect(await sel('app=web,tier!=back')).toEqual(['default/a', 'other/a']);
    expect(await sel('app in (db,web),tier')).toEqual(['default/a', 'default/b']);
    expect(await sel('app notin (web)')).toEqual(['default/c', 'default/d']);
    expect(await sel('!app')).toEqual(['default/d']);
    await expectApiError(core.listConfigMapForAllNamespaces({ labelSelector: 'app in (' }), 400, 'BadRequest');
  });

  it('should filter by field selectors on name and namespace', async () => {
    expect(names((await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name=a' })).items)).toEqual(['default/a', 'other/a']);
    expect(
      names((await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name==a,metadata.namespace!=default' })).items),
    ).toEqual(['other/a']);
    await expectApiError(core.listConfigMapForAllNamespaces({ fieldSelector: 'spec.nope=1' }), 400);
  });

  it('should page with limit and continue over a consistent snapshot', async () => {
    const first = await core.listConfigMapForAllNamespaces({ limit: 2 });
    expect(names(first.items)).toEqual(['default/a', 'default/b']);
    expect(first.metadata!.remainingItemCount).toBe(3);
    const token = first.metadata!._continue!;
    expect(token).toBeTruthy();
    // Writes after the first page do not show up in later pages: they read the first page's snapshot.
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'bb' } } });
    await core.deleteNamespacedConfigMap({ name: 'c', namespace: 'default' });
    const second = await core.listConfigMapForAllNamespaces({ limit: 2, _continue: token });
    expect(names(second.items)).toEqual(['default/c', 'default/d']);
    expect(second.metadata!.resourceVersion).toBe(first.metadata!.resourceVersion);
    const third = await core.listConfigMapForAllNamespaces({ limit: 2, _continue: second.metadata!._continue! });
    expect(names(third.items)).toEqual(['other/a']);
    expect(third.metadata!._continue).toBeUndefined();
    // Restore for other tests.
    await core.deleteNamespacedConfigMap({ name: 'bb', namespace: 'default' });
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c', labels: { app: 'db' } } } });
  });

  it('should page with a label selector applied before paging', async () => {
    const page = await core.listConfigMapForAllNamespaces({ labelSelector: 'app=web', limit: 2 });
    expect(names(page.items)).toEqual(['default/a', 'default/b']);
    // As on a real server, how many remain is not told when a selector narrowed the list.
    expect(page.metadata!.remainingItemCount).toBeUndefined();
    const byField = await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=default', limit: 3 });
    expect(names(byField.items)).toEqual(['default/a', 'default/b', 'default/c']);
    expect(byField.metadata!.remainingItemCount).toBeUndefined();
    const fieldRest = await core.listConfigMapForAllNamespaces({
      fieldSelector: 'metadata.namespace=default',
      limit: 3,
      _continue: byField.metadata!._continue!,
    });
    expect(names(fieldRest.items)).toEqual(['default/d']);
    expect(fieldRest.metadata!._continue).toBeUndefined();
    const rest = await core.listConfigMapForAllNamespaces({ labelSelector: 'app=web', limit: 2, _continue: page.metadata!._continue! });
    expect(names(rest.items)).toEqual(['other/a']);
  });

  it('should answer 410 Expired to a continue token from compacted history', async () => {
    const first = await core.listConfigMapForAllNamespaces({ limit: 1 });
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'z' } } });
    server.compact();
    await expectApiError(core.listConfigMapForAllNamespaces({ limit: 1, _continue: first.metadata!._continue! }), 410, 'Expired');
    await expectApiError(core.listConfigMapForAllNamespaces({ limit: 1, _continue: 'garbage' }), 400, 'BadRequest');
  });

  it('should read an exact past resourceVersion when asked, and reject future ones', async () => {
    await core.createNamespacedConfigMap({ namespace: 'other', body: { metadata: { name: 'x1' } } });
    const rv = server.resourceVersion();
    await core.createNamespacedConfigMap({ namespace: 'other', body: { metadata: { name: 'x2' } } });
    const exact = await core.listNamespacedConfigMap({ namespace: 'other', resourceVersion: rv, resourceVersionMatch: 'Exact' });
    expect(exact.items.map((i) => i.metadata!.name)).toEqual(['a', 'x1']);
    expect(exact.metadata!.resourceVersion).toBe(rv);
    const notOlder = await core.listNamespacedConfigMap({ namespace: 'other', resourceVersion: rv });
    expect(notOlder.items.map((i) => i.metadata!.name)).toEqual(['a', 'x1', 'x2']);
    const any = await core.listNamespacedConfigMap({ namespace: 'other', resourceVersion: '0' });
    expect(any.items).toHaveLength(3);
    await expectApiError(
      core.listNamespacedConfigMap({ namespace: 'other', resourceVersion: String(Number(server.resourceVersion()) + 100) }),
      504,
      'Timeout',
    );
  });

  it('should delete a collection by selector', async () => {
    await core.createNamespacedConfigMap({ namespace: 'other', body: { metadata: { name: 'tmp1', labels: { tmp: 'y' } } } });
    await core.createNamespacedConfigMap({ namespace: 'other', body: { metadata: { name: 'tmp2', labels: { tmp: 'y' } } } });
    await core.deleteCollectionNamespacedConfigMap({ namespace: 'other', labelSelector: 'tmp=y' });
    expect((await core.listNamespacedConfigMap({ namespace: 'other', labelSelector: 'tmp' })).items).toEqual([]);
    expect((await core.listNamespacedConfigMap({ namespace: 'other' })).items.length).toBeGreaterThan(0);
  });
});

describe('listObjects with forged continue tokens', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const token = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');

  it.each([
    ['a future resourceVersion', { v: 1, rv: 1e300, after: 'x' }],
    ['a fractional resourceVersion', { v: 1, rv: 1.5, after: 'x' }],
    ['a negative resourceVersion', { v: 1, rv: -5, after: 'x' }],
    ['a version never reached', { v: 1, rv: 999, after: 'x' }],
  ])('should refuse %s with 400, never answering at that version', async (_what, forged) => {
    const res = await request<StatusBody>(server.url, 'GET', `/api/v1/namespaces?limit=1&continue=${token(forged)}`);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/^continue key is not valid/);
  });
});
