// The setup every informer-against-a-misbehaving-server suite shares: servers, proxies, a quiet log.
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { setLogger } from '../../src/index.js';
import { Harness } from './kube.js';
import { startApiProxy, type ApiProxy } from './apiProxy.js';

/**
 * Call inside a `describe`: a Harness (servers and stop signals) and proxies, all released after each test,
 * with rxkrt's log silenced for the suite (its tests provoke errors on purpose and read them on `errors$`).
 */
export function proxiedHarness(): { readonly h: Harness; proxyTo(url: string): Promise<ApiProxy> } {
  const h = new Harness();
  const proxies: ApiProxy[] = [];
  afterEach(async () => {
    await h.release();
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  beforeAll(() => setLogger({}));
  afterAll(() => setLogger());
  return {
    h,
    async proxyTo(url) {
      const proxy = await startApiProxy(url);
      proxies.push(proxy);
      return proxy;
    },
  };
}
