import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { Faults } from '../../../src/apiserver/http/faults.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError, ManualClock, waitFor } from '../helpers.js';

describe('Faults', () => {
  it('should consume matching rules in order and drop used-up ones', () => {
    const f = new Faults();
    f.failNext(1, 500, (m) => m === 'POST');
    f.failNext(2);
    f.delayNext(1, 50);
    expect(f.take('GET', '/a')).toEqual({ delayMs: 50, failStatus: 503 });
    expect(f.take('POST', '/a')).toEqual({ delayMs: 0, failStatus: 500 });
    expect(f.take('POST', '/a')).toEqual({ delayMs: 0, failStatus: 503 });
    expect(f.take('GET', '/a')).toEqual({ delayMs: 0, failStatus: undefined });
  });

  it('should reject nonsense arguments', () => {
    const f = new Faults();
    expect(() => f.failNext(-1)).toThrow(RangeError);
    expect(() => f.failNext(1.5)).toThrow(RangeError);
    expect(() => f.failNext(1, 200)).toThrow(RangeError);
    expect(() => f.delayNext(1, -5)).toThrow(RangeError);
  });
});

describe('ApiServer fault hooks', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  const clock = new ManualClock();
  beforeAll(async () => {
    server = await startApiServer({ clock });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  it('should fail the next N requests with 503 by default, then recover', async () => {
    server.failNext(2);
    const status = await expectApiError(core.listNamespace(), 503, 'ServiceUnavailable');
    expect(status.message).toContain('injected');
    await expectApiError(core.listNamespace(), 503);
    const list = await core.listNamespace();
    expect(list.items.length).toBeGreaterThan(0);
  });

  it('should fail only matching requests with the given status', async () => {
    server.failNext(1, 500, { match: (method, path) => method === 'GET' && path.includes('/configmaps') });
    await core.listNamespace();
    await expectApiError(core.listNamespacedConfigMap({ namespace: 'default' }), 500, 'InternalError');
    await core.listNamespacedConfigMap({ namespace: 'default' });
  });

  it('should delay the next N matching requests', async () => {
    server.delayNext(1, 1_000, { match: (_m, path) => path.startsWith('/api/v1/namespaces/default/configmaps') });
    let settled = false;
    const seen = server.requests.length;
    const slow = core.listNamespacedConfigMap({ namespace: 'default' }).then(() => {
      settled = true;
    });
    await waitFor(() => server.requests.length > seen, 'the delayed request to arrive');
    // A request that does not match overtakes the delayed one, which waits for the (virtual) clock.
    await core.listNamespace();
    expect(settled).toBe(false);
    clock.advance(1_000);
    await slow;
    expect(settled).toBe(true);
    // Only one request was delayed.
    await core.listNamespacedConfigMap({ namespace: 'default' });
  });

  it('should log requests with their query strings', async () => {
    await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'a=b' });
    const last = server.requests[server.requests.length - 1]!;
    expect(last.method).toBe('GET');
    expect(last.path).toBe('/api/v1/namespaces/default/configmaps?labelSelector=a%3Db');
  });

  it('should keep only the most recent requests, as many as requestLogLimit says', async () => {
    const small = await startApiServer({ requestLogLimit: 3 });
    try {
      const api = small.kubeConfig().makeApiClient(CoreV1Api);
      for (const name of ['a', 'b', 'c', 'd']) await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
      await api.listNamespacedConfigMap({ namespace: 'default' });
      expect(small.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /api/v1/namespaces/default/configmaps',
        'POST /api/v1/namespaces/default/configmaps',
        'GET /api/v1/namespaces/default/configmaps',
      ]);
    } finally {
      await small.close();
    }
  });
});
