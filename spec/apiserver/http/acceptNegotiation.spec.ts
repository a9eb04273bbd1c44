import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkAcceptsJson } from '../../../src/apiserver/http/acceptNegotiation.js';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';

describe('checkAcceptsJson', () => {
  it.each([
    [undefined],
    [''],
    ['application/json'],
    ['application/vnd.kubernetes.protobuf,application/json'],
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json'],
    ['application/vnd.kubernetes.protobuf, */*'],
    ['APPLICATION/*;q=0.5'],
  ])('should accept %s', (accept) => {
    expect(() => checkAcceptsJson(accept)).not.toThrow();
  });

  it.each([['application/vnd.kubernetes.protobuf'], ['application/vnd.kubernetes.protobuf;stream=watch'], ['text/html, application/cbor']])(
    'should refuse %s with 406',
    (accept) => {
      let error: unknown;
      try {
        checkAcceptsJson(accept);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StatusError);
      expect(error).toMatchObject({
        code: 406,
        reason: 'NotAcceptable',
        message: 'only the following media types are accepted: application/json',
      });
    },
  );
});

describe('Accept on resource routes', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  it('should answer a protobuf-only client with a 406 Status, and one that also takes JSON with JSON', async () => {
    const only = await fetch(`${server.url}/api/v1/namespaces`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(only.status).toBe(406);
    expect(await only.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotAcceptable', code: 406 });
    const both = await fetch(`${server.url}/api/v1/namespaces`, {
      headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' },
    });
    expect(both.status).toBe(200);
    expect(both.headers.get('content-type')).toBe('application/json');
    expect(await both.json()).toMatchObject({ kind: 'NamespaceList' });
  });
});
