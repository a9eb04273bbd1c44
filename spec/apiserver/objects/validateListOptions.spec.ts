import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { request, type StatusBody } from '../helpers.js';

describe('validateListOptions', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const get = (query: string) => request<StatusBody>(server.url, 'GET', `/api/v1/namespaces/default/configmaps?${query}`);

  it.each([
    [
      'resourceVersion=1&resourceVersionMatch=Latest',
      'resourceVersionMatch: Unsupported value: "Latest": supported values: "Exact", "NotOlderThan", ""',
    ],
    ['resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersion=1&resourceVersionMatch=NotOlderThan&continue=x', 'resourceVersionMatch is forbidden when continue is provided'],
    ['sendInitialEvents=false', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['watch=true&resourceVersionMatch=NotOlderThan', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    [
      'watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=Exact',
      'Unsupported value: "Exact": supported values: "NotOlderThan"',
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
      'allowWatchBookmarks must be set to true when sendInitialEvents is set',
    ],
    [
      'watch=true&sendInitialEvents=true&allowWatchBookmarks=true',
      'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
  ])('should refuse %s with 422 Invalid', async (query, text) => {
    const res = await get(query);
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(res.json.message).toMatch(/^ListOptions\.meta\.k8s\.io "" is invalid: /);
    expect(res.json.message).toContain(text);
  });

  it.each([
    'resourceVersion=1&resourceVersionMatch=NotOlderThan',
    'resourceVersion=1&resourceVersionMatch=Exact',
    'resourceVersion=0&resourceVersionMatch=NotOlderThan',
  ])('should serve the documented combination %s', async (query) => {
    expect((await get(query)).status).toBe(200);
  });

  it.each(['1.5', 'abc', '1e3', '9223372036854775808'])('should refuse timeoutSeconds=%s with 400', async (value) => {
    const res = await get(`watch=true&timeoutSeconds=${value}`);
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('BadRequest');
    expect(res.json.message).toContain(`timeoutSeconds: Invalid value: "${value}"`);
  });

  it.each(['resourceVersion=99999999999999999999999', 'watch=true&resourceVersion=99999999999999999999999'])(
    'should refuse an out-of-range resourceVersion with 400 (%s)',
    async (query) => {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.json.message).toBe('resourceVersion: Invalid value: "99999999999999999999999": out of range');
    },
  );

  it('should answer a resourceVersion newer than any issued with 504 Timeout on LIST and WATCH', async () => {
    const future = String(Number(server.resourceVersion()) + 100);
    for (const query of [`resourceVersion=${future}`, `watch=true&resourceVersion=${future}`]) {
      const res = await get(query);
      expect(res.status).toBe(504);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json).toMatchObject({
        reason: 'Timeout',
        message: `Timeout: Too large resource version: ${future}, current: ${server.resourceVersion()}`,
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      });
    }
    expect(server.openWatches()).toBe(0);
  });
});
