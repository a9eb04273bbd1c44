import { describe, expect, it } from '@jest/globals';
import { TOTAL_ANNOTATION_SIZE_LIMIT } from '../../../src/apiserver/objects/validateMetadata.js';
import { expectApiError, request, type StatusBody, serverForSuite } from '../helpers.js';

describe('validateMetadata', () => {
  const suite = serverForSuite();

  const create = (name: string, metadata: Record<string, unknown>) =>
    suite.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name, ...metadata } } });

  it.each([
    ['a key with a space', { 'bad key': 'v' }, 'Invalid value: "bad key": name part must consist of alphanumeric characters'],
    ['a key with two slashes', { 'a/b/c': 'v' }, 'Invalid value: "a/b/c": a qualified name must consist of'],
    ['a key with an empty prefix', { '/x': 'v' }, 'Invalid value: "/x": prefix part must be non-empty'],
    ['a key with an upper-case prefix', { 'Example.com/x': 'v' }, 'prefix part a lowercase RFC 1123 subdomain must consist of'],
    ['a key whose name part is too long', { ['k'.repeat(64)]: 'v' }, 'name part must be no more than 63 characters'],
    ['a value that is too long', { k: 'v'.repeat(64) }, 'must be no more than 63 characters'],
    ['a value with a slash', { k: 'a/b' }, 'Invalid value: "a/b": a valid label must be an empty string or consist of'],
    ['a value ending in a dash', { k: 'a-' }, "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'"],
  ])('should refuse labels with %s with 422 Invalid naming the field and value', async (_what, labels, text) => {
    const status = await expectApiError(create('labels', { labels }), 422, 'Invalid');
    expect(status.message).toMatch(/^ConfigMap "labels" is invalid: /);
    expect(status.message).toContain(text);
    expect(status.details!.causes![0]).toMatchObject({ field: 'metadata.labels' });
  });

  it('should accept empty label values, prefixed keys and 63-character values', async () => {
    const labels = { 'example.com/k': '', 'a.b_c-d': 'x'.repeat(63) };
    expect((await create('good-labels', { labels })).metadata!.labels).toEqual(labels);
  });

  it('should apply the rules to updates and patches too', async () => {
    await create('upd', {});
    const res = await request<StatusBody>(suite.server.url, 'PATCH', '/api/v1/namespaces/default/configmaps/upd', {
      body: { metadata: { labels: { k: 'no spaces allowed' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('metadata.labels: Invalid value: "no spaces allowed"');
  });

  it('should refuse annotation keys that are not qualified names, ignoring upper case', async () => {
    expect((await create('ann-upper', { annotations: { 'Example.COM/Key': 'v' } })).metadata!.name).toBe('ann-upper');
    const status = await expectApiError(create('ann-bad', { annotations: { 'no spaces': 'v' } }), 422, 'Invalid');
    expect(status.details!.causes![0]).toMatchObject({ field: 'metadata.annotations', reason: 'FieldValueInvalid' });
  });

  it('should refuse annotations over 256 KiB in total with 422 FieldValueTooLong', async () => {
    const half = 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT / 2);
    const status = await expectApiError(create('ann-big', { annotations: { a: half, b: half } }), 422, 'Invalid');
    expect(status.message).toBe('ConfigMap "ann-big" is invalid: metadata.annotations: Too long: must have at most 262144 bytes');
    expect(status.details!.causes).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: must have at most 262144 bytes', field: 'metadata.annotations' },
    ]);
    // Exactly at the limit is fine (keys count: 'a' and 'b' are one byte each).
    const fits = { a: half.slice(1), b: half.slice(1) };
    expect((await create('ann-fits', { annotations: fits })).metadata!.name).toBe('ann-fits');
  });

  it('should list every bad field in one aggregate message', async () => {
    const status = await expectApiError(create('many', { labels: { 'a b': 'c d' } }), 422, 'Invalid');
    expect(status.message).toMatch(/^ConfigMap "many" is invalid: \[metadata\.labels: .*, metadata\.labels: .*\]$/);
    expect(status.details!.causes).toHaveLength(2);
  });

  it.each([
    [
      'an owner without uid',
      [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }],
      [['metadata.ownerReferences.uid', 'Invalid value: "": must not be empty']],
    ],
    [
      'an owner without version, kind and name',
      [{ apiVersion: 'apps/', uid: 'u' }],
      [
        ['metadata.ownerReferences.apiVersion', 'Invalid value: "apps/": version must not be empty'],
        ['metadata.ownerReferences.kind', 'Invalid value: "": must not be empty'],
        ['metadata.ownerReferences.name', 'Invalid value: "": must not be empty'],
      ],
    ],
    [
      'an Event as owner',
      [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }],
      [['metadata.ownerReferences', '/v1, Kind=Event is disallowed from being an owner']],
    ],
    [
      'two controllers',
      [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: 'u1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: 'u2', controller: true },
      ],
      [
        [
          'metadata.ownerReferences',
          'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
        ],
      ],
    ],
  ])('should refuse %s', async (_what, ownerReferences, expected) => {
    const status = await expectApiError(create('owned', { ownerReferences }), 422, 'Invalid');
    expect(status.details!.causes!.map((c) => [c.field, c.message])).toEqual(expected.map(([f, m]) => [f, expect.stringContaining(m!)]));
  });

  it('should accept complete owner references with one controller', async () => {
    const ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'u2' },
    ];
    expect((await create('owned-ok', { ownerReferences })).metadata!.ownerReferences).toHaveLength(2);
  });

  it('should refuse finalizers that are not qualified names, or both garbage collection policies', async () => {
    const bad = await expectApiError(create('fin-bad', { finalizers: ['example.com/a b'] }), 422, 'Invalid');
    expect(bad.details!.causes![0]).toMatchObject({
      field: 'metadata.finalizers',
      message: expect.stringContaining('Invalid value: "example.com/a b": name part must consist of'),
    });
    const both = await expectApiError(create('fin-both', { finalizers: ['orphan', 'foregroundDeletion'] }), 422, 'Invalid');
    expect(both.message).toContain('finalizer orphan and foregroundDeletion cannot be both set');
    expect((await create('fin-ok', { finalizers: ['kubernetes', 'example.com/hold'] })).metadata!.finalizers).toHaveLength(2);
  });
});
