import { describe, it, expect, afterEach } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { startApiServer, type ApiServer } from '../../src/testing/apiserver/index.js';
import { trackEvents } from '../../src/testing/tracker.js';

const cm = (name: string, data: Record<string, string> = {}): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('newInformer', () => {
  let server: ApiServer | undefined;
  const stops: AbortController[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await server?.close();
    server = undefined;
  });

  it('should list, sync, and follow watch events (krt TestNewInformer)', async () => {
    server = await startApiServer();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const stop = new AbortController();
    stops.push(stop);
    const cms = newInformer<V1ConfigMap>(kc, { apiVersion: 'v1', kind: 'ConfigMap' }, { stop: stop.signal });
    const t = trackEvents(cms);
    expect(await cms.waitUntilSynced()).toBe(true);
    expect(cms.list()).toEqual([]);
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await until(() => cms.getKey('default/a') !== undefined, 'add a');
    await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'default', body: cm('a', { x: '1' }) });
    await until(() => cms.getKey('default/a')?.data?.x === '1', 'update a');
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('b') });
    await until(() => cms.list().length === 2, 'add b');
    t.expectOrdered('add/default/a', 'update/default/a', 'add/default/b');
    const late = trackEvents(cms);
    late.expectUnordered('add/default/a', 'add/default/b');
    await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
    await until(() => cms.getKey('default/b') === undefined, 'delete b');
    t.expectOrdered('delete/default/b');
    expect(informerStats(cms)?.lists).toBe(1);
  });
});
