import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { MAX_CONFIG_DATA_BYTES } from '../../../src/apiserver/hooks/configData.js';
import { request, type StatusBody } from '../helpers.js';

describe('validateConfigData', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const post = (plural: string, name: string, fields: object) =>
    request<StatusBody>(server.url, 'POST', `/api/v1/namespaces/default/${plural}`, { body: { metadata: { name }, ...fields } });

  it.each([
    [
      'configmaps',
      { data: { 'a b': 'v' } },
      'ConfigMap "keys" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
    ],
    ['configmaps', { data: { '..x': 'v' } }, `data[..x]: Invalid value: "..x": must not start with '..'`],
    ['configmaps', { data: { k: 'v' }, binaryData: { k: 'dg==' } }, 'data[k]: Invalid value: "k": duplicate of key present in binaryData'],
    ['secrets', { stringData: { 'a/b': 'v' } }, 'Secret "keys" is invalid: data[a/b]: Invalid value: "a/b": a valid config key'],
  ])('should refuse bad %s keys with 422 Invalid', async (plural, fields, message) => {
    const res = await post(plural, 'keys', fields);
    expect(res.status).toBe(422);
    expect(res.json.message).toContain(message);
  });

  it('should refuse a ConfigMap over 1 MiB of data, and take one at the limit', async () => {
    const half = 'x'.repeat(MAX_CONFIG_DATA_BYTES / 2);
    const over = await post('configmaps', 'big', { data: { a: half, b: `${half}x` } });
    expect(over.status).toBe(422);
    expect(over.json.message).toBe('ConfigMap "big" is invalid: : Too long: must have at most 1048576 bytes');
    expect((await post('configmaps', 'big', { data: { a: half, b: half } })).status).toBe(201);
  });

  it('should count a Secret in decoded bytes', async () => {
    // 1 MiB + 3 bytes once decoded, although well under the 3 MiB body limit in base64.
    const over = Buffer.alloc(MAX_CONFIG_DATA_BYTES + 3).toString('base64');
    const res = await post('secrets', 'big', { data: { a: over } });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('Secret "big" is invalid: data: Too long: must have at most 1048576 bytes');
    expect((await post('secrets', 'big', { data: { a: Buffer.alloc(MAX_CONFIG_DATA_BYTES).toString('base64') } })).status).toBe(201);
  });
});
