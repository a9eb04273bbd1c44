import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { k8sProtoRoot } from '../../../src/apiserver/apimachinery/protobuf/protoMessages.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { kubectlFixture, withoutNullTimestamps } from '../apimachinery/protobuf/kubectlFixture.js';
import { request, widgetCrd, type StatusBody } from '../helpers.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const root = k8sProtoRoot();

/** A Kubernetes protobuf body for `object` (protobuf field names) of the message `type`; `cut` drops bytes off its end. */
function protobufBody(apiVersion: string, kind: string, type: string, object: Record<string, unknown>, cut = 0): Buffer {
  const t = root.lookupType(type);
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const message = t.encode(t.fromObject(object)).finish();
  const raw = message.subarray(0, message.length - cut);
  return Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish(),
  ]);
}

async function send(server: ApiServer, method: string, path: string, body: Uint8Array, contentType = PROTOBUF) {
  const res = await fetch(server.url + path, {
    method,
    body,
    headers: { 'Content-Type': contentType, Accept: `${PROTOBUF}, application/json` },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & StatusBody };
}

describe('readObjectBody', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } } });
  });
  afterAll(() => server.close());

  it.each(kubectlFixture.cases.filter((c) => c.name !== 'namespace').map((c) => [c.name, c] as const))(
    'should create from the body kubectl sent for %s',
    async (_, c) => {
      const { status, json } = await send(server, 'POST', c.path, Buffer.from(c.body, 'base64'));
      expect(status).toBe(201);
      if (c.json) expect(json).toMatchObject(withoutNullTimestamps(c.json) as Record<string, unknown>);
      else expect(json).toMatchObject({ kind: 'Pod', metadata: { namespace: 'demo' }, spec: { nodeName: 'n1' } });
      expect(json.metadata).toMatchObject({
        uid: expect.any(String),
        resourceVersion: expect.any(String),
        creationTimestamp: expect.any(String),
      });
    },
  );

  it('should replace an object from a protobuf body', async () => {
    const body = protobufBody('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {
      metadata: { name: 'cm1', namespace: 'demo' },
      data: { a: 'changed' },
    });
    const { status, json } = await send(server, 'PUT', '/api/v1/namespaces/demo/configmaps/cm1', body);
    expect(status).toBe(200);
    expect(json.data).toEqual({ a: 'changed' });
    expect((await request<{ data: unknown }>(server.url, 'GET', '/api/v1/namespaces/demo/configmaps/cm1')).json.data).toEqual({
      a: 'changed',
    });
  });

  it('should refuse a protobuf body whose kind is not the resource of the path, as it refuses such JSON', async () => {
    const body = protobufBody('v1', 'Secret', 'k8s.io.api.core.v1.Secret', { metadata: { name: 'x' } });
    const { status, json } = await send(server, 'POST', '/api/v1/namespaces/demo/configmaps', body);
    const asJson = await request<StatusBody>(server.url, 'POST', '/api/v1/namespaces/demo/configmaps', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } },
    });
    expect({ status, message: json.message }).toEqual({ status: asJson.status, message: asJson.json.message });
    expect(json.message).toContain('Secret');
  });

  it('should answer a malformed protobuf body with a 400 Status naming the kind', async () => {
    const cut = protobufBody('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'cut' }, data: { a: 'b' } }, 3);
    const { status, json } = await send(server, 'POST', '/api/v1/namespaces/demo/configmaps', cut);
    expect(status).toBe(400);
    expect(json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(json.message).toMatch(
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: its protobuf message \(ConfigMap\) is malformed: /,
    );
    const envelopeCut = await send(server, 'POST', '/api/v1/namespaces/demo/configmaps', cut.subarray(0, cut.length - 3));
    expect(envelopeCut.status).toBe(400);
    expect(envelopeCut.json.message).toMatch(/^the protobuf envelope \(runtime.Unknown\) could not be decoded: /);
  });

  it('should refuse a protobuf body over 3 MiB with 413', async () => {
    const big = protobufBody('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(3 * 1024 * 1024) },
    });
    const { status, json } = await send(server, 'POST', '/api/v1/namespaces/demo/configmaps', big);
    expect(status).toBe(413);
    expect(json.reason).toBe('RequestEntityTooLarge');
  });

  it('should answer 415 for protobuf sent to a custom resource, as a real server does', async () => {
    await request(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd() });
    const body = protobufBody('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'w' } });
    const { status, json } = await send(server, 'POST', '/apis/example.com/v1/namespaces/demo/widgets', body);
    expect(status).toBe(415);
    expect(json).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
    expect(json.message).toContain('Widget is a custom resource, which has no protobuf form');
  });

  it("should read protobuf DeleteOptions on DELETE, labelled with the resource's group version", async () => {
    const created = await request<{ metadata: { uid: string } }>(server.url, 'POST', '/api/v1/namespaces/demo/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed' } },
    });
    const options = (uid: string) =>
      protobufBody('v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions', { preconditions: { uid } });
    const wrong = await send(server, 'DELETE', '/api/v1/namespaces/demo/configmaps/doomed', options('not-the-uid'));
    expect(wrong.status).toBe(409);
    expect(wrong.json.message).toContain('not-the-uid');
    const right = await send(server, 'DELETE', '/api/v1/namespaces/demo/configmaps/doomed', options(created.json.metadata.uid));
    expect(right.status).toBe(200);
    expect((await request(server.url, 'GET', '/api/v1/namespaces/demo/configmaps/doomed')).status).toBe(404);
  });

  it('should still take JSON on the same routes', async () => {
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } }));
    expect((await send(server, 'POST', '/api/v1/namespaces/demo/configmaps', body, 'application/json')).status).toBe(201);
  });
});
