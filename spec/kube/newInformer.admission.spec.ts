// newInformer against a server that sends what it should not: each bad object is rejected by name, the good ones stay.
import { describe, it, expect } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { type TransformError } from '../../src/index.js';
import { newInformer, informerStats, RejectedObjectError, type InformerOptions, type ResourceRef } from '../../src/kube/index.js';
import { Replica, expectConverged, serverVersions, until } from '../helpers/kube.js';
import { listOf, watchOf, type WatchLine } from '../helpers/apiProxy.js';
import { proxiedHarness } from '../helpers/proxiedHarness.js';

const cm = (name: string, namespace = 'default', labels?: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data: {},
});
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const FAST = { initialMs: 10, maxMs: 50 };

/** The rejections among the reported errors, as `key: reason` lines. */
function rejections(errors: readonly TransformError[]): RejectedObjectError[] {
  return errors.map((e) => e.error).filter((e): e is RejectedObjectError => e instanceof RejectedObjectError);
}

describe('newInformer admission', () => {
  const { h, proxyTo } = proxiedHarness();

  /** A server with `names` in `default` (and `others` in `other`), a proxy in front, and an informer through it. */
  async function setup(ref: ResourceRef, names: string[], opts: InformerOptions = {}, others: string[] = []) {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
    for (const n of names) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(n, 'default', { tier: 'web' }) });
    for (const n of others) await core.createNamespacedConfigMap({ namespace: 'other', body: cm(n, 'other', { tier: 'web' }) });
    const proxy = await proxyTo(server.url);
    const start = () => {
      const informer = newInformer<V1ConfigMap>(proxy.kubeConfig(), ref, { stop: h.stop(), backoff: FAST, ...opts });
      return { informer, replica: new Replica(informer) };
    };
    return { server, kc, core, proxy, start };
  }

  it('should keep the good items of a LIST with null, a string, an array and nameless objects among them, rejecting each by value', async () => {
    const { proxy, start, kc } = await setup(CM, ['a', 'b']);
    const bad: unknown[] = [null, 'just a string', [1, 2], { metadata: {} }, { metadata: null }, 42];
    proxy.on(
      listOf('/configmaps'),
      { kind: 'rewriteBody', rewrite: (l) => ({ ...(l as object), items: [...bad, ...(l as { items: unknown[] }).items] }) },
      1,
    );
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'a LIST with bad items');
    const rejected = rejections(replica.errors);
    expect(rejected.map((e) => e.value)).toEqual(bad);
    for (const e of rejected) {
      expect(e.resource).toBe('/api/v1/configmaps');
      expect(e.message).toMatch(/^rejected from \/api\/v1\/configmaps: (not an object|no metadata object|no metadata.name): /);
    }
    expect(replica.errors[0]!.collection).toMatch(/^Informer\/ConfigMap/);
    expect(replica.errors[0]!.message).toContain('listed object rejected');
    expect(informerStats(informer)).toMatchObject({ lists: 1, rejected: bad.length });
  });

  it('should fail the whole LIST clearly (and retry) when the answer is not a list at all', async () => {
    const { proxy, start, kc } = await setup(CM, ['a']);
    proxy.on(listOf('/configmaps'), { kind: 'answer', status: 200, body: { kind: 'ConfigMapList', items: 'nope' } }, 1);
    proxy.on(listOf('/configmaps'), { kind: 'answer', status: 200, body: null }, 1);
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after two broken pages');
    expect(replica.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /list of \/api\/v1\/configmaps failed; retrying: LIST \/api\/v1\/configmaps: the answer is not a list \(not an object\)/,
      ),
      expect.stringMatching(/the answer is not a list \(items is not an array\)/),
    ]);
    expect(informerStats(informer)).toMatchObject({ lists: 3, errors: 2 });
  });

  it('should reject watch events that are not objects, of another namespace, kind or label, or with a non-numeric resourceVersion, and keep watching', async () => {
    const ref: ResourceRef = { ...CM, namespace: 'default', labelSelector: 'tier=web' };
    const { server, proxy, start, core, kc } = await setup(ref, ['a']);
    const injected: unknown[] = [];
    proxy.on(watchOf('/configmaps'), {
      kind: 'rewriteEvents',
      rewrite: (line: WatchLine) => {
        const o = line.object as V1ConfigMap;
        if (line.type !== 'ADDED' || o.metadata?.name !== 'trigger') return [line];
        const bad = [
          'a string instead of an object',
          null,
          { ...o, metadata: { ...o.metadata, name: 'elsewhere', namespace: 'other' } },
          { ...o, metadata: { ...o.metadata, name: 'unlabelled', labels: { tier: 'db' } } },
          { ...o, kind: 'Secret', metadata: { ...o.metadata, name: 'secret' } },
          { ...o, metadata: { ...o.metadata, name: 'bad-rv', resourceVersion: 'not-a-number' } },
        ];
        injected.push(...bad);
        return [
          ...bad.map((object) => ({ type: 'MODIFIED', object })),
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: 'x1' } } },
          line,
        ];
      },
    });
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    await until(() => server.openWatches() === 1, 'the first watch');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('trigger', 'default', { tier: 'web' }) });
    await until(() => replica.state.has('default/trigger'), 'the trigger object');
    const rejected = rejections(replica.errors);
    expect(rejected.map((e) => e.value)).toEqual([...injected, { metadata: { resourceVersion: 'x1' } }]);
    expect(rejected.map((e) => [e.key, e.reason])).toEqual([
      [undefined, 'not an object'],
      [undefined, 'not an object'],
      ['other/elsewhere', 'namespace "other" is outside the informer\'s namespace "default"'],
      ['default/unlabelled', 'labels do not match the informer\'s labelSelector "tier=web"'],
      ['default/secret', 'kind "Secret" is not ConfigMap'],
      ['default/bad-rv', 'resourceVersion "not-a-number" is not a decimal string'],
      [undefined, 'bookmark resourceVersion is not a decimal string'],
    ]);
    // The key is on the reported TransformError too.
    expect(replica.errors.find((e) => e.error === rejected[2])?.key).toBe('other/elsewhere');
    expect(informer.getKey('default/unlabelled')).toBeUndefined();

    // The watch resumed from a resourceVersion the server accepts: later changes still arrive, no relist, no 400.
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('later', 'default', { tier: 'web' }) });
    await expectConverged(
      replica,
      () => serverVersions(kc, 'v1', 'ConfigMap', { namespace: 'default', labelSelector: 'tier=web' }),
      'after bad events',
    );
    expect(informerStats(informer)).toMatchObject({ lists: 1, relists: 0, rejected: 7, errors: 0 });
  });

  it('should reject LIST items outside the namespace, label selector or name field selector', async () => {
    const ref: ResourceRef = { ...CM, namespace: 'default', labelSelector: 'tier in (web)', fieldSelector: 'metadata.name!=skip' };
    const { proxy, start, kc } = await setup(ref, ['a', 'b']);
    proxy.on(listOf('/configmaps'), {
      kind: 'rewriteBody',
      rewrite: (l) => {
        const list = l as { items: V1ConfigMap[] };
        const a = list.items[0]!;
        const extra = [
          { ...a, metadata: { ...a.metadata, name: 'x', namespace: 'other' } },
          { ...a, metadata: { ...a.metadata, name: 'y', labels: {} } },
          { ...a, metadata: { ...a.metadata, name: 'skip' } },
        ];
        return { ...list, items: [...list.items, ...extra] };
      },
    });
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    expect(Object.keys(replica.versions()).sort()).toEqual(['default/a', 'default/b']);
    expect(rejections(replica.errors).map((e) => e.key)).toEqual(['other/x', 'default/y', 'default/skip']);
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap', { namespace: 'default' }), 'selectors');
  });

  it('should fail a LIST whose resourceVersion is not a decimal string, and retry it', async () => {
    const { proxy, start, kc } = await setup(CM, ['a']);
    proxy.on(
      listOf('/configmaps'),
      { kind: 'rewriteBody', rewrite: (l) => ({ ...(l as object), metadata: { resourceVersion: 'abc' } }) },
      1,
    );
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after a bad LIST resourceVersion');
    expect(rejections(replica.errors).map((e) => e.value)).toEqual(['abc']);
    expect(informerStats(informer)).toMatchObject({ lists: 2, rejected: 1, errors: 1 });
  });

  it('should keep the cached version of an object a relist sends with a malformed resourceVersion (no delete)', async () => {
    const { server, proxy, start } = await setup(CM, ['a', 'b']);
    const { informer, replica } = start();
    expect(await informer.waitUntilSynced()).toBe(true);
    // Open at the server, not only asked for at the proxy: a cut before that would cut nothing.
    await until(() => server.openWatches() === 1, 'the first watch');
    const cachedB = informer.getKey('default/b');
    // The next watch finds its history gone (410); the relist that follows sends b with a broken resourceVersion.
    proxy.on(watchOf('/configmaps'), { kind: 'answer', status: 410, body: { kind: 'Status', code: 410, reason: 'Expired' } }, 1);
    const breakB = (o: V1ConfigMap): V1ConfigMap =>
      o.metadata?.name === 'b' ? { ...o, metadata: { ...o.metadata, resourceVersion: 'x' } } : o;
    proxy.on(
      listOf('/configmaps'),
      { kind: 'rewriteBody', rewrite: (l) => ({ ...(l as object), items: (l as { items: V1ConfigMap[] }).items.map(breakB) }) },
      1,
    );
    server.dropWatches();
    await until(
      () => informerStats(informer)!.relists === 1 && informerStats(informer)!.rejected === 1,
      () => JSON.stringify(informerStats(informer)),
    );
    expect(rejections(replica.errors).map((e) => [e.key, e.reason])).toEqual([
      ['default/b', 'resourceVersion "x" is not a decimal string'],
    ]);
    expect(informer.getKey('default/b')).toBe(cachedB);
    expect(replica.events().filter((e) => e.type === 'delete')).toEqual([]);
  });

  for (const how of ['an HTTP 400', 'an in-stream ERROR 400'] as const) {
    it(`should relist when the server refuses the watch's resourceVersion with ${how}`, async () => {
      const { server, proxy, start, core, kc } = await setup(CM, ['a']);
      const status = {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'resourceVersion: Invalid value',
      };
      const { informer, replica } = start();
      expect(await informer.waitUntilSynced()).toBe(true);
      await until(() => server.openWatches() === 1, 'the first watch');
      // The next watch is refused; cutting the open one makes the informer ask for it.
      proxy.on(
        watchOf('/configmaps'),
        how === 'an HTTP 400'
          ? { kind: 'answer', status: 400, body: status }
          : { kind: 'stream', lines: [{ type: 'ERROR', object: status }] },
        1,
      );
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
      await until(() => replica.state.has('default/b'), 'b');
      const watchesBefore = proxy.requests.filter((r) => r.isWatch).length;
      server.dropWatches();
      await until(
        () => proxy.requests.filter((r) => r.isWatch).length >= watchesBefore + 2,
        'a refused watch, then a watch after the relist',
      );
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('c') });
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), `relist after ${how}`);
      expect(replica.errors).toHaveLength(1);
      expect((replica.errors[0]!.error as { statusCode?: number }).statusCode).toBe(400);
      expect(informerStats(informer)).toMatchObject({ lists: 2, relists: 1, errors: 1 });
    });
  }
});
