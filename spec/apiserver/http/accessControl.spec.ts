import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { nodeRequest } from '../helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('checkAccess: Host and Origin', () => {
  let server: ApiServer;
  let port: string;
  beforeAll(async () => {
    server = await startApiServer({ allowedHosts: ['dev.internal', 'proxy.example:8443'], allowedOrigins: ['http://localhost:3000/'] });
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  const get = (headers: Record<string, string>) => nodeRequest(`${server.url}/api/v1/namespaces`, { headers });

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT', 'dev.internal:PORT', 'proxy.example:8443'])(
    'should serve Host %s',
    async (host) => {
      expect((await get({ Host: host.replace('PORT', port) })).status).toBe(200);
    },
  );

  it.each([
    'evil.example:PORT',
    'evil.example',
    '127.0.0.1:1',
    'localhost',
    'localhost.evil.example:PORT',
    'dev.internal:1',
    'proxy.example:PORT',
  ])('should refuse Host %s with 403 Forbidden (DNS rebinding)', async (host) => {
    const res = await get({ Host: host.replace('PORT', port) });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(res.json.message).toContain(`Host "${host.replace('PORT', port)}" is not allowed`);
  });

  it.each(['http://127.0.0.1:PORT', 'http://localhost:PORT', 'http://localhost:3000'])('should serve Origin %s', async (origin) => {
    expect((await get({ Origin: origin.replace('PORT', port) })).status).toBe(200);
  });

  it.each(['https://evil.example', 'null', 'http://127.0.0.1:1', 'https://127.0.0.1:PORT', 'http://localhost:3001'])(
    'should refuse Origin %s with 403 Forbidden (a web page)',
    async (origin) => {
      const res = await get({ Origin: origin.replace('PORT', port) });
      expect(res.status).toBe(403);
      expect(res.json.reason).toBe('Forbidden');
    },
  );

  it('should refuse a cross-site POST that a page can send without a preflight, and store nothing', async () => {
    const rv = server.resourceVersion();
    const body = JSON.stringify({ metadata: { name: 'csrf' } });
    const foreign = await nodeRequest(`${server.url}${CMS}`, {
      method: 'POST',
      body,
      headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' },
    });
    expect(foreign.status).toBe(403);
    // Even without Origin (an old browser, a redirect): no content type is a 415, text/plain too.
    const untyped = await nodeRequest(`${server.url}${CMS}`, { method: 'POST', body });
    expect(untyped.status).toBe(415);
    expect(untyped.json).toMatchObject({
      reason: 'UnsupportedMediaType',
      message: 'POST request needs a Content-Type: application/json or application/yaml',
    });
    const plain = await nodeRequest(`${server.url}${CMS}`, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).toBe(415);
    for (const method of ['PUT', 'PATCH']) {
      const res = await nodeRequest(`${server.url}${CMS}/x`, { method, body });
      expect([method, res.status]).toEqual([method, 415]);
    }
    expect(server.resourceVersion()).toBe(rv);
  });

  it('should still take a DELETE without a body or content type, as client-node sends it', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'bye' } } });
    expect((await nodeRequest(`${server.url}${CMS}/bye`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('checkAccess: bearer token', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ token: 's3cret-token' });
  });
  afterAll(() => server.close());

  it('should answer requests without the token with 401 Unauthorized, on every path', async () => {
    for (const path of ['/api/v1/namespaces', '/version', '/healthz', '/nothing-here']) {
      const res = await nodeRequest(`${server.url}${path}`, { headers: { Authorization: 'Bearer s3cret-tokeN' } });
      expect([path, res.status, res.json.reason]).toEqual([path, 401, 'Unauthorized']);
    }
  });

  it('should serve client-node through kubeConfig() and through the kubeconfig text', async () => {
    const direct = server.kubeConfig().makeApiClient(CoreV1Api);
    expect((await direct.listNamespace()).items.length).toBeGreaterThan(0);
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfigYaml());
    expect(kc.getCurrentUser()!.token).toBe('s3cret-token');
    expect((await kc.makeApiClient(CoreV1Api).listNamespace()).items.length).toBeGreaterThan(0);
  });

  it('should refuse an empty token or one with spaces', async () => {
    await expect(startApiServer({ token: '' })).rejects.toThrow('token must be non-empty, without spaces');
    await expect(startApiServer({ token: 'a b' })).rejects.toThrow('token must be non-empty, without spaces');
  });
});
