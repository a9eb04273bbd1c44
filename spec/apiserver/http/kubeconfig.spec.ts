import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFor, kubeconfigYaml } from '../../../src/apiserver/http/kubeconfig.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';

describe('kubeConfigFor', () => {
  it('should point at the URL with TLS verification off (required for http) and namespace default', () => {
    const kc = kubeConfigFor('http://127.0.0.1:1234');
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'http://127.0.0.1:1234', skipTLSVerify: true });
    expect(kc.getContextObject(kc.getCurrentContext())!.namespace).toBe('default');
  });
});

describe('kubeconfigYaml', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  it('should load into client-node and reach the server', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfigYaml());
    expect(kc.getCurrentCluster()!.server).toBe(server.url);
    const list = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(list.items.length).toBe(4);
  });

  it('should be the same document for the same URL', () => {
    expect(kubeconfigYaml(server.url)).toBe(server.kubeconfigYaml());
    expect(server.kubeconfigYaml()).toContain('insecure-skip-tls-verify: true');
  });
});
