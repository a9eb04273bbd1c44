import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { request, type StatusBody } from '../helpers.js';

describe('checkDecodable', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const post = (plural: string, body: object) => request<StatusBody>(server.url, 'POST', `/api/v1/namespaces/default/${plural}`, { body });

  it.each([
    [
      'configmaps',
      { data: { k: 1 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    ['configmaps', { data: { k: { x: 1 } } }, 'json: cannot unmarshal object into Go struct field ConfigMap.data of type string'],
    ['configmaps', { data: ['x'] }, 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'],
    ['configmaps', { binaryData: { k: true } }, 'json: cannot unmarshal boolean into Go struct field ConfigMap.binaryData of type []uint8'],
    ['configmaps', { binaryData: { k: 'not base64!' } }, 'cannot be handled as a ConfigMap: illegal base64 data at input byte 3'],
    ['secrets', { data: { k: 'abc' } }, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0'],
    ['secrets', { stringData: { k: 5 } }, 'json: cannot unmarshal number into Go struct field Secret.stringData of type string'],
    [
      'configmaps',
      { metadata: { labels: { k: 1 } } },
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    ],
    ['secrets', { metadata: { annotations: { k: false } } }, 'Go struct field ObjectMeta.metadata.annotations of type string'],
  ])('should refuse %s with %j with 400 BadRequest as the decoder words it', async (plural, extra, message) => {
    const body = { ...extra, metadata: { name: 'typed', ...(extra as { metadata?: object }).metadata } };
    const res = await post(plural, body);
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('BadRequest');
    expect(res.json.message).toContain(message);
  });

  it('should store null map values as empty strings, as the decoder does', async () => {
    const res = await post('configmaps', { metadata: { name: 'nulls', labels: { k: null } }, data: { k: null } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ metadata: { labels: { k: '' } }, data: { k: '' } });
  });

  it('should accept string data and base64 binaryData', async () => {
    const res = await post('configmaps', { metadata: { name: 'fine' }, data: { k: 'v' }, binaryData: { b: 'aGk=' } });
    expect(res.status).toBe(201);
  });

  it('should refuse an unknown content type with 415 UnsupportedMediaType', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'text/x-json', 'application/cbor']) {
      const res = await request<StatusBody>(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        body: '{"metadata":{"name":"media"}}',
        contentType,
      });
      expect([contentType, res.status, res.json.reason]).toEqual([contentType, 415, 'UnsupportedMediaType']);
    }
  });
});
