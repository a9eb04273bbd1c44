import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { decodeYaml, yamlDepthBound } from '../../../src/apiserver/apimachinery/yamlBody.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { request, type StatusBody } from '../helpers.js';

/** The StatusError `decodeYaml(text)` throws; fails the test when it does not throw one. */
function refusal(text: string): StatusError {
  try {
    decodeYaml(text);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error(`decodeYaml accepted ${JSON.stringify(text.slice(0, 80))}`);
}

describe('decodeYaml', () => {
  it('should decode block YAML as the Python client and kubectl send it', () => {
    const text = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: cm',
      '  labels: {app: web}',
      '  creationTimestamp: 2024-01-01T00:00:00Z',
      'data:',
      '  a: "1"',
      '  b: |',
      '    line one',
      '    line two',
      '',
    ].join('\n');
    expect(decodeYaml(text)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      // Timestamps stay the strings they were, as kube's YAML-to-JSON conversion keeps them.
      metadata: { name: 'cm', labels: { app: 'web' }, creationTimestamp: '2024-01-01T00:00:00Z' },
      data: { a: '1', b: 'line one\nline two\n' },
    });
  });

  it('should read scalars with YAML 1.1 rules, as go-yaml v2 does', () => {
    // `y` is a boolean too, also as a key, which JSON then spells "true".
    expect(decodeYaml('a: yes\nb: off\nc: 0777\nd: 0x1F\ne: 1.5\nf: ~\ng: "yes"\ny: 1\n')).toEqual({
      true: 1,
      a: true,
      b: false,
      c: 511,
      d: 31,
      e: 1.5,
      f: null,
      g: 'yes',
    });
  });

  it('should keep the last of two equal keys, as go-yaml v2 outside strict mode does', () => {
    expect(decodeYaml('a: 1\na: 2\n')).toEqual({ a: 2 });
  });

  it('should expand anchors, aliases and merge keys', () => {
    expect(decodeYaml('base: &b {x: 1}\nother:\n  <<: *b\n  z: 2\nsame: *b\n')).toEqual({
      base: { x: 1 },
      other: { x: 1, z: 2 },
      same: { x: 1 },
    });
  });

  it('should answer undefined for an empty document', () => {
    expect(decodeYaml('# only a comment\n')).toBeUndefined();
    expect(decodeYaml('---\n')).toBeUndefined();
  });

  it('should refuse several documents, sequences and scalars with a clear 400', () => {
    const cases: Array<[string, RegExp]> = [
      ['a: 1\n---\nb: 2\n', /holds 2 documents/],
      ['- a\n- b\n', /expected a mapping \(an object\), got a sequence/],
      ['hello\n', /expected a mapping \(an object\), got the scalar "hello"/],
      ['a: [b\n', /could not be decoded as YAML/],
      ['a: .inf\n', /Infinity has no JSON form/],
      ['a: !!binary aGVsbG8=\n', /has no JSON form/],
    ];
    for (const [text, message] of cases) {
      const e = refusal(text);
      expect([text, e.code, e.reason]).toEqual([text, 400, 'BadRequest']);
      expect(e.message).toMatch(message);
    }
  });

  it('should refuse a billion laughs before expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [name, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
      ['g', 'f'],
    ] as const) {
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    expect(refusal(levels.join('\n')).message).toMatch(/alias/i);
  });

  it('should refuse deep nesting of every YAML form before parsing it', () => {
    for (const text of [
      `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `a: ${'{b: '.repeat(100_000)}${'}'.repeat(100_000)}`,
      `a: ${'- '.repeat(100_000)}x`,
      `a:\n${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} x\n`,
    ]) {
      expect(refusal(text).message).toMatch(/nesting exceeds the maximum depth of 500/);
    }
  });

  it('should refuse nesting that only aliases make deep', () => {
    // 200 levels per line, each line holding the one before through an alias: 600 levels once expanded.
    const lines = [`l0: &l0 ${'['.repeat(200)}x${']'.repeat(200)}`];
    for (let i = 1; i <= 2; i++) lines.push(`l${i}: &l${i} ${'['.repeat(200)}*l${i - 1}${']'.repeat(200)}`);
    expect(refusal(lines.join('\n')).message).toMatch(/once aliases are expanded/);
  });
});

describe('yamlDepthBound', () => {
  it('should bound the nesting from above, counting indentation, indicators and flow brackets', () => {
    const cases: Array<[string, number]> = [
      ['a: 1\n', 1],
      ['a:\n  b:\n    - c: 1\n', 6],
      ['a: [[1], {b: [2]}]\n', 5],
      ['a: "[[[[" \nb: \'{{{\'\n', 1],
    ];
    for (const [text, bound] of cases) expect([text, yamlDepthBound(text)]).toEqual([text, bound]);
  });
});

describe('YAML bodies through a running server', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const cm = '/api/v1/namespaces/default/configmaps/yaml-cm';

  it('should create and replace from application/yaml, and apply block YAML as kubectl and the Python client send it', async () => {
    const created = await request<V1ConfigMap>(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-cm\ndata:\n  a: "1"\n',
      contentType: 'application/yaml',
    });
    expect([created.status, created.json.data]).toEqual([201, { a: '1' }]);
    const replaced = await request<V1ConfigMap>(server.url, 'PUT', cm, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-cm\ndata:\n  a: "2"\n',
      contentType: 'application/yaml; charset=utf-8',
    });
    expect([replaced.status, replaced.json.data]).toEqual([200, { a: '2' }]);
    const applied = await request<V1ConfigMap>(server.url, 'PATCH', `${cm}?fieldManager=yaml&force=true`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-cm\ndata:\n  a: "3"\n  b: |\n    two\n    lines\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect([applied.status, applied.json.data]).toEqual([200, { a: '3', b: 'two\nlines\n' }]);
  });

  it('should answer 400 to an apply with several documents or a list, and store nothing', async () => {
    const rv = server.resourceVersion();
    for (const body of ['apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\n', '- apiVersion: v1\n']) {
      const res = await request<StatusBody>(server.url, 'PATCH', `${cm}?fieldManager=yaml`, {
        body,
        contentType: 'application/apply-patch+yaml',
      });
      expect([body, res.status, res.json.reason]).toEqual([body, 400, 'BadRequest']);
    }
    expect(server.resourceVersion()).toBe(rv);
  });
});
