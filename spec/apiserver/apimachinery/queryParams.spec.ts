import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap, type V1ObjectMeta } from '@kubernetes/client-node';
import {
  parseDeleteQuery,
  parsePatchQuery,
  parseWriteQuery,
  queryBool,
  queryInt,
  queryString,
  wantsPretty,
} from '../../../src/apiserver/apimachinery/queryParams.js';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import type { JsonValue } from '../../../src/apiserver/apimachinery/json.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError, openWatch, request, waitFor, type StatusBody } from '../helpers.js';

const q = (text: string): URLSearchParams => new URLSearchParams(text);

/** The StatusError `fn` throws (the test fails when it throws nothing or something else). */
function refusal(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('queryBool', () => {
  // apimachinery's Convert_Slice_string_To_bool: only absent, "0" and "false" (any case) are false.
  it('should read every value but 0 and false as true, as the parameter codec does', () => {
    const cases: Array<[string, boolean]> = [
      ['', false],
      ['watch', true],
      ['watch=', true],
      ['watch=true', true],
      ['watch=True', true],
      ['watch=1', true],
      ['watch=yes', true],
      ['watch=no', true],
      ['watch=0', false],
      ['watch=false', false],
      ['watch=False', false],
      ['watch=FALSE', false],
      ['watch=00', true],
      // Only the first value counts.
      ['watch=false&watch=true', false],
      ['watch=true&watch=false', true],
    ];
    for (const [query, expected] of cases) expect([query, queryBool(q(query), 'watch')]).toEqual([query, expected]);
  });
});

describe('queryInt', () => {
  it('should read what strconv.ParseInt(s, 10, 64) reads', () => {
    const cases: Array<[string, number | undefined]> = [
      ['', undefined],
      ['limit=0', 0],
      ['limit=10', 10],
      // A literal '+' in a query is a space, in Go's url.Query as here: only an encoded one is a sign.
      ['limit=%2B10', 10],
      ['limit=-1', -1],
      ['limit=007', 7],
      ['limit=9223372036854775807', 2 ** 63],
      ['limit=-9223372036854775808', -(2 ** 63)],
      ['limit=5&limit=x', 5],
    ];
    for (const [query, expected] of cases) expect([query, queryInt(q(query), 'limit')]).toEqual([query, expected]);
  });

  it('should answer 400 naming the parameter and the value for anything else', () => {
    expect(refusal(() => queryInt(q('limit=+10'), 'limit')).message).toContain('" 10"');
    for (const value of ['', 'ten', '1.5', ' 1', '1e3', '0x10', '1_000', '9223372036854775808', '-9223372036854775809']) {
      const e = refusal(() => queryInt(q(`timeoutSeconds=${encodeURIComponent(value)}`), 'timeoutSeconds'));
      expect([value, e.code, e.reason]).toEqual([value, 400, 'BadRequest']);
      expect(e.message).toContain(`timeoutSeconds: Invalid value: ${JSON.stringify(value)}`);
    }
  });
});

describe('queryString and wantsPretty', () => {
  it('should read the first value of a string, empty as absent', () => {
    expect(queryString(q('fieldManager=a&fieldManager=b'), 'fieldManager')).toBe('a');
    expect(queryString(q('fieldManager='), 'fieldManager')).toBeUndefined();
  });

  it('should pretty-print as strconv.ParseBool reads pretty, else for curl, Wget and browsers', () => {
    const cases: Array<[string, string | undefined, boolean]> = [
      ['pretty=true', undefined, true],
      ['pretty=1', undefined, true],
      ['pretty=T', undefined, true],
      ['pretty=yes', undefined, false],
      ['pretty=false', 'curl/8.0', false],
      ['pretty=', 'curl/8.0', true],
      ['', 'Wget/1.21', true],
      ['', 'Mozilla/5.0 (X11)', true],
      ['', 'kubectl/v1.32.0', false],
      ['', undefined, false],
    ];
    for (const [query, ua, expected] of cases) expect([query, ua, wantsPretty(q(query), ua)]).toEqual([query, ua, expected]);
  });
});

describe('parseWriteQuery and parsePatchQuery', () => {
  it('should read dryRun=All and the field manager', () => {
    expect(parseWriteQuery(q('dryRun=All&fieldManager=me'), 'CreateOptions')).toEqual({ dryRun: true, fieldManager: 'me' });
    expect(parseWriteQuery(q(''), 'UpdateOptions')).toEqual({ dryRun: false, fieldManager: undefined });
  });

  it('should refuse an unknown dryRun value with 422 for the options kind', () => {
    const e = refusal(() => parseWriteQuery(q('dryRun=true'), 'CreateOptions'));
    expect([e.code, e.details?.kind, e.details?.group]).toEqual([422, 'CreateOptions', 'meta.k8s.io']);
    expect(e.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "true": supported values: "All"');
  });

  it('should validate the field manager as ValidateFieldManager does: 128 bytes, printable characters', () => {
    expect(parseWriteQuery(q(`fieldManager=${'m'.repeat(128)}`), 'UpdateOptions').fieldManager).toHaveLength(128);
    expect(parseWriteQuery(q('fieldManager=caf%C3%A9 %E2%9C%93'), 'UpdateOptions').fieldManager).toBe('café ✓');
    const long = refusal(() => parseWriteQuery(q(`fieldManager=${'é'.repeat(65)}`), 'UpdateOptions'));
    expect(long.message).toContain('fieldManager: Too long: may not be more than 128 bytes');
    const control = refusal(() => parseWriteQuery(q('fieldManager=a%09b'), 'UpdateOptions'));
    expect(control.message).toContain('invalid character U+0009 (at position 1)');
    expect(control.details?.kind).toBe('UpdateOptions');
  });

  it('should read force as a boolean, require a manager for apply and forbid force elsewhere', () => {
    expect(parsePatchQuery(q('fieldManager=py&force=True'), true)).toEqual({ dryRun: false, fieldManager: 'py', force: true });
    expect(parsePatchQuery(q('fieldManager=py&force=false'), true).force).toBe(false);
    expect(parsePatchQuery(q(''), false).force).toBeUndefined();
    const noManager = refusal(() => parsePatchQuery(q('force=true'), true));
    expect(noManager.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    // kube checks that force was sent at all, so even force=false is refused on a merge patch.
    const forced = refusal(() => parsePatchQuery(q('force=false&dryRun=x'), false));
    expect(forced.details?.causes?.map((c) => c.field)).toEqual(['force', 'dryRun']);
  });
});

describe('parseDeleteQuery', () => {
  it('should read the options from the query when there is no body', () => {
    expect(parseDeleteQuery(q('propagationPolicy=Foreground&gracePeriodSeconds=0&dryRun=All'), undefined)).toEqual({
      dryRun: true,
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      preconditions: undefined,
    });
    expect(parseDeleteQuery(q('orphanDependents=True'), undefined).propagationPolicy).toBe('Orphan');
    expect(parseDeleteQuery(q('orphanDependents=false'), undefined).propagationPolicy).toBe('Background');
    expect(parseDeleteQuery(q(''), undefined).propagationPolicy).toBeUndefined();
  });

  it('should read a DeleteOptions body instead of the query when there is one', () => {
    const body: JsonValue = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
      preconditions: { uid: 'u1', resourceVersion: '' },
    };
    expect(parseDeleteQuery(q('propagationPolicy=Foreground&dryRun=All'), body)).toEqual({
      dryRun: false,
      gracePeriodSeconds: undefined,
      propagationPolicy: 'Orphan',
      preconditions: { uid: 'u1', resourceVersion: undefined },
    });
    expect(parseDeleteQuery(q(''), { dryRun: ['All'], gracePeriodSeconds: 5 })).toMatchObject({ dryRun: true, gracePeriodSeconds: 5 });
  });

  it('should refuse an unknown policy, both policy fields, and a bad dryRun with 422', () => {
    const unknown = refusal(() => parseDeleteQuery(q('propagationPolicy=Cascade'), undefined));
    expect(unknown.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Cascade": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = refusal(() => parseDeleteQuery(q(''), { propagationPolicy: 'Background', orphanDependents: true, dryRun: ['Some'] }));
    expect(both.details?.causes?.map((c) => c.field)).toEqual(['propagationPolicy', 'dryRun']);
    expect(both.code).toBe(422);
  });

  it('should answer 400 for a body that is not a DeleteOptions, or a malformed grace period', () => {
    for (const body of [[1], 'x', { gracePeriodSeconds: 'soon' }, { dryRun: 'All' }, { orphanDependents: 'yes' }] as JsonValue[]) {
      expect([body, refusal(() => parseDeleteQuery(q(''), body)).code]).toEqual([body, 400]);
    }
    expect(refusal(() => parseDeleteQuery(q('gracePeriodSeconds=now'), undefined)).message).toContain('gracePeriodSeconds');
  });
});

describe('query parameters through a running server', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  const cms = '/api/v1/namespaces/default/configmaps';
  beforeAll(async () => {
    server = await startApiServer();
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  const create = (name: string, meta: Partial<V1ObjectMeta> = {}): Promise<V1ConfigMap> =>
    core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name, ...meta }, data: { a: '1' } } });

  it('should start a watch for watch=True, as the Python client sends it', async () => {
    const watch = await openWatch<V1ConfigMap>(server.url, `${cms}?watch=True&resourceVersion=${server.resourceVersion()}`);
    try {
      expect(watch.status).toBe(200);
      await create('py-watch');
      await waitFor(() => watch.events.length > 0, 'an event on the watch=True stream');
      expect(watch.events.map((e) => `${e.type} ${e.object.metadata!.name}`)).toEqual(['ADDED py-watch']);
    } finally {
      watch.close();
    }
  });

  it('should list everything for a negative limit and end a watch at once for a negative timeout', async () => {
    await create('l1');
    await create('l2');
    const list = await request<{ items: unknown[]; metadata: { continue?: string } }>(server.url, 'GET', `${cms}?limit=-1`);
    expect([list.status, list.json.items.length >= 2, list.json.metadata.continue]).toEqual([200, true, undefined]);
    const watch = await openWatch(server.url, `${cms}?watch=1&timeoutSeconds=-1`);
    await watch.ended;
    expect(watch.status).toBe(200);
  });

  it('should check and answer dryRun=All writes without storing them or emitting a watch event', async () => {
    await create('dry');
    const watch = await openWatch<V1ConfigMap>(server.url, `${cms}?watch=true&resourceVersion=${server.resourceVersion()}`);
    try {
      const rv = server.resourceVersion();
      const body = { metadata: { name: 'dry' }, data: { a: '2' } };
      const put = await core.replaceNamespacedConfigMap({ name: 'dry', namespace: 'default', body, dryRun: 'All' });
      expect(put.data).toEqual({ a: '2' });
      const patched = await request<V1ConfigMap>(server.url, 'PATCH', `${cms}/dry?dryRun=All`, {
        body: { data: { b: '3' } },
        contentType: 'application/merge-patch+json',
      });
      expect([patched.status, patched.json.data]).toEqual([200, { a: '1', b: '3' }]);
      const deleted = await request<V1ConfigMap>(server.url, 'DELETE', `${cms}/dry?dryRun=All&propagationPolicy=Foreground`);
      expect(deleted.status).toBe(200);
      expect(deleted.json.metadata!.finalizers).toEqual(['foregroundDeletion']);
      await expectApiError(core.deleteNamespacedConfigMap({ name: 'dry', namespace: 'default', dryRun: 'true' }), 422, 'Invalid');
      expect(server.resourceVersion()).toBe(rv);
      expect((await core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' })).data).toEqual({ a: '1' });
      // A real write after them is the first event the watch sees.
      await core.patchNamespacedConfigMap(
        { name: 'dry', namespace: 'default', body: { data: { c: '4' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await waitFor(() => watch.events.length > 0, 'the real write');
      expect(watch.events.map((e) => [e.type, e.object.data])).toEqual([['MODIFIED', { a: '1', c: '4' }]]);
    } finally {
      watch.close();
    }
  });

  it('should refuse an unknown dryRun, a bad field manager and force on a merge patch with 422', async () => {
    const bad = await expectApiError(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'bad' } }, dryRun: 'Yes' }),
      422,
      'Invalid',
    );
    expect(bad.message).toContain('CreateOptions.meta.k8s.io');
    const manager = await request<StatusBody>(server.url, 'POST', `${cms}?fieldManager=a%0Ab`, { body: { metadata: { name: 'fm' } } });
    expect([manager.status, manager.json.message]).toEqual([422, expect.stringContaining('invalid character U+000A')]);
    const forced = await request<StatusBody>(server.url, 'PATCH', `${cms}/l1?force=false`, {
      body: { data: { x: 'y' } },
      contentType: 'application/merge-patch+json',
    });
    expect([forced.status, forced.json.message]).toEqual([422, expect.stringContaining('force: Forbidden')]);
  });

  it('should keep a Foreground or Orphan delete marked with its finalizer, and remove a Background one', async () => {
    await create('fg');
    await core.deleteNamespacedConfigMap({ name: 'fg', namespace: 'default', propagationPolicy: 'Foreground' });
    const fg = await core.readNamespacedConfigMap({ name: 'fg', namespace: 'default' });
    expect([fg.metadata!.finalizers, fg.metadata!.deletionTimestamp !== undefined]).toEqual([['foregroundDeletion'], true]);
    // No garbage collector runs: the finalizer stays until a client removes it; a Background delete does that too.
    await core.deleteNamespacedConfigMap({ name: 'fg', namespace: 'default', propagationPolicy: 'Background' });
    await expectApiError(core.readNamespacedConfigMap({ name: 'fg', namespace: 'default' }), 404);

    await create('orphan', { finalizers: ['example.com/keep'] });
    const orphan = await request<V1ConfigMap>(server.url, 'DELETE', `${cms}/orphan?propagationPolicy=Foreground`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
    });
    expect(orphan.json.metadata!.finalizers).toEqual(['example.com/keep', 'orphan']);
    await create('bg');
    await core.deleteNamespacedConfigMap({ name: 'bg', namespace: 'default', propagationPolicy: 'Background' });
    await expectApiError(core.readNamespacedConfigMap({ name: 'bg', namespace: 'default' }), 404);
  });

  it('should indent JSON for pretty=true and for curl, and not otherwise', async () => {
    const pretty = await fetch(`${server.url}${cms}/l1?pretty=true`);
    expect(await pretty.text()).toMatch(/^\{\n {2}"apiVersion": "v1",\n/);
    const curl = await fetch(`${server.url}${cms}/missing`, { headers: { 'User-Agent': 'curl/8.5.0' } });
    expect([curl.status, (await curl.text()).startsWith('{\n')]).toEqual([404, true]);
    const plain = await fetch(`${server.url}${cms}/l1?pretty=0`, { headers: { 'User-Agent': 'curl/8.5.0' } });
    expect((await plain.text()).startsWith('{"')).toBe(true);
  });
});
