import { describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { sendError, sendJson } from '../../../src/apiserver/apimachinery/jsonBodies.js';
import { MAX_JSON_DEPTH } from '../../../src/apiserver/apimachinery/jsonDepth.js';
import { expectApiError, openWatch, request, type StatusBody, serverForSuite } from '../helpers.js';

/** `{"a":{"a":…}}` nested `depth` levels (the outer object counts). */
function nested(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

/** A fake response that records what happened to it, with headers already sent when asked. */
function fakeResponse(headersSent: boolean, writeHeadThrows = false) {
  const calls: string[] = [];
  const res = {
    destroyed: false,
    writableEnded: false,
    headersSent,
    writeHead: () => {
      calls.push('writeHead');
      if (writeHeadThrows) throw new Error('boom');
    },
    end: () => calls.push('end'),
    destroy: () => calls.push('destroy'),
  };
  return { res: res as unknown as ServerResponse, calls };
}

describe('sendJson and sendError', () => {
  it('should cut the socket instead of writing headers twice', () => {
    const { res, calls } = fakeResponse(true);
    sendJson(res, 500, {});
    expect(calls).toEqual(['destroy']);
  });

  it('should never throw, cutting the socket when even the answer fails', () => {
    const { res, calls } = fakeResponse(false, true);
    expect(() => sendError(res, new Error('x'))).not.toThrow();
    expect(calls).toEqual(['writeHead', 'destroy']);
  });
});

describe('readJsonBody through a running suite.server', () => {
  const suite = serverForSuite();

  const cms = '/api/v1/namespaces/default/configmaps';

  it('should refuse a body nested deeper than the limit before storing it, and keep LIST and WATCH working', async () => {
    const rv = suite.server.resourceVersion();
    const body = `{"metadata":{"name":"deep"},"data":{},"x":${nested(3000)}}`;
    const res = await request<StatusBody>(suite.server.url, 'POST', cms, { body });
    expect(res.status).toBe(400);
    expect(res.json.reason).toBe('BadRequest');
    expect(res.json.message).toContain(`maximum depth of ${MAX_JSON_DEPTH}`);
    expect(suite.server.resourceVersion()).toBe(rv);
    expect((await suite.core.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata!.name)).not.toContain('deep');
    const watch = await openWatch(suite.server.url, `${cms}?watch=true&resourceVersion=1&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    watch.close();
  });

  it('should accept a body exactly at the limit', async () => {
    // metadata sits at level 2; the nested value starts at level 2 too, so it may use MAX - 1 levels.
    const body = `{"metadata":{"name":"at-limit"},"x":${nested(MAX_JSON_DEPTH - 1)}}`;
    expect((await request(suite.server.url, 'POST', cms, { body })).status).toBe(201);
    const over = `{"metadata":{"name":"over-limit"},"x":${nested(MAX_JSON_DEPTH)}}`;
    expect((await request(suite.server.url, 'POST', cms, { body: over })).status).toBe(400);
  });

  it('should not count brackets inside strings', async () => {
    const body = JSON.stringify({ metadata: { name: 'brackets' }, data: { k: '['.repeat(5000) } });
    expect((await request(suite.server.url, 'POST', cms, { body })).status).toBe(201);
  });

  it('should refuse a patch whose result nests deeper than the limit with 422', async () => {
    await suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'grow' } } });
    const half = JSON.parse(nested(MAX_JSON_DEPTH - 10)) as object;
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    await suite.core.patchNamespacedConfigMap({ name: 'grow', namespace: 'default', body: { x: half } }, merge);
    // JSON Patch adds at a path, so each patch can deepen the object by a body's worth of levels.
    let path = '/x';
    for (let i = 0; i < MAX_JSON_DEPTH - 20; i++) path += '/a';
    const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    const status = await expectApiError(
      suite.core.patchNamespacedConfigMap(
        { name: 'grow', namespace: 'default', body: [{ op: 'add', path: `${path}/b`, value: half }] },
        jsonPatch,
      ),
      422,
      'Invalid',
    );
    expect(status.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect((await suite.core.listNamespacedConfigMap({ namespace: 'default' })).items.length).toBeGreaterThan(0);
  });

  it('should refuse a body over 3 MiB with 413 RequestEntityTooLarge', async () => {
    const body = JSON.stringify({ metadata: { name: 'big' }, data: { k: 'x'.repeat(3 * 1024 * 1024) } });
    const res = await request<StatusBody>(suite.server.url, 'POST', cms, { body });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
  });
});
