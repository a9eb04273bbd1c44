import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { parseRequestTarget, pathSegments } from '../../../src/apiserver/http/requestTarget.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { parseRawAnswer, rawExchange, request, type StatusBody } from '../helpers.js';

function refusal(f: () => unknown): StatusError {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('parseRequestTarget', () => {
  it('should split an origin-form target into decoded segments and keep the query', () => {
    const t = parseRequestTarget('/api/v1/namespaces/a%20b/configmaps?labelSelector=x%3Dy');
    expect(t.segments).toEqual(['api', 'v1', 'namespaces', 'a b', 'configmaps']);
    expect(t.url.searchParams.get('labelSelector')).toBe('x=y');
  });

  it('should keep //host/x a path on this server', () => {
    const t = parseRequestTarget('//evil.example/api');
    expect(t.url.host).toBe('127.0.0.1');
    expect(t.segments).toEqual(['evil.example', 'api']);
  });

  it.each([
    ['absolute form', 'http://x/api/v1/namespaces'],
    ['authority form', 'example.com:443'],
    ['invalid port', 'x:99999'],
    ['asterisk form', '*'],
    ['dot-dot segment', '/api/v1/namespaces/default/../../pods'],
    ['encoded dot-dot', '/api/v1/namespaces/default/%2e%2e/%2E%2E/pods'],
    ['dot segment', '/api/./v1/pods'],
    ['encoded slash', '/api/v1/namespaces/default%2Fx/configmaps'],
    ['backslash', '/api\\v1/pods'],
    ['malformed escape', '/api/v1/namespaces/%zz/configmaps'],
    ['truncated escape', '/api/v1/namespaces/%E0%A4%A/configmaps'],
  ])('should refuse the %s with 400 BadRequest', (_what, target) => {
    const e = refusal(() => parseRequestTarget(target));
    expect(e.code).toBe(400);
    expect(e.reason).toBe('BadRequest');
  });

  it('should name the offending segment', () => {
    expect(refusal(() => pathSegments('/api/v1/namespaces/%zz')).message).toContain('"%zz"');
  });
});

describe('startApiServer with malformed request targets', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  it.each([
    ['absolute form', 'GET http://x/api/v1/namespaces HTTP/1.1'],
    ['absolute form with an invalid port', 'GET http://x:99999/api/v1/namespaces HTTP/1.1'],
    ['authority form', 'CONNECT example.com:443 HTTP/1.1'],
    ['authority form with an invalid port', 'CONNECT x:99999 HTTP/1.1'],
    ['asterisk form', 'OPTIONS * HTTP/1.1'],
    ['encoded dot-dot segments', 'GET /api/v1/namespaces/default/%2e%2e/%2e%2e/secrets HTTP/1.1'],
    ['an encoded slash', 'GET /api/v1/namespaces/default%2F..%2F../configmaps HTTP/1.1'],
    ['a malformed percent-escape', 'GET /api/v1/namespaces/%zz/configmaps HTTP/1.1'],
  ])('should answer the %s with a 400 Status and keep serving', async (_what, line) => {
    const answer = await rawExchange(server.url, `${line}\r\nHost: ${new URL(server.url).host}\r\nConnection: close\r\n\r\n`);
    const { status, body } = parseRawAnswer(answer);
    expect(status).toBe(400);
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    const list = await server.kubeConfig().makeApiClient(CoreV1Api).listNamespace();
    expect(list.items.length).toBeGreaterThan(0);
  });

  it('should answer a malformed escape in a fetch request with 400, not 500', async () => {
    const res = await request<StatusBody>(server.url, 'GET', '/api/v1/namespaces/default/configmaps/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('malformed percent-escape');
  });
});

describe('startApiServer with requests node cannot parse', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  it.each([
    ['garbage', () => 'GARBAGE\r\n\r\n', 400, 'BadRequest'],
    [
      'oversized headers',
      (host: string) => `GET / HTTP/1.1\r\nHost: ${host}\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'RequestHeaderFieldsTooLarge',
    ],
  ])('should answer %s with a Status and keep serving', async (_what, text, code, reason) => {
    const { status, body } = parseRawAnswer(await rawExchange(server.url, text(new URL(server.url).host)));
    expect(status).toBe(code);
    expect(body).toMatchObject({ kind: 'Status', reason, code });
    expect((await request(server.url, 'GET', '/version')).status).toBe(200);
  });
});
