import { describe, expect, it } from '@jest/globals';
import { deleteAt, FieldSet, formatPath, valueAt } from '../../../src/apiserver/patch/fieldSet.js';

describe('FieldSet', () => {
  it('should collect leaf paths, treating lists and empty maps as leaves', () => {
    const set = FieldSet.fromObject({
      spec: { replicas: 1, ports: [{ port: 80 }], empty: {}, gone: null },
      metadata: { labels: { a: 'b' } },
    });
    expect(set.paths().map(formatPath).sort()).toEqual(['.metadata.labels.a', '.spec.empty', '.spec.ports', '.spec.replicas']);
  });

  it('should round-trip through fieldsV1', () => {
    const set = new FieldSet([
      ['spec', 'a'],
      ['spec', 'b', 'c'],
      ['spec', 'b'],
    ]);
    const tree = set.toFieldsV1();
    expect(tree).toEqual({ 'f:spec': { 'f:a': {}, 'f:b': { '.': {}, 'f:c': {} } } });
    expect(FieldSet.fromFieldsV1(tree).paths().map(formatPath).sort()).toEqual(['.spec.a', '.spec.b', '.spec.b.c']);
  });

  it('should find overlapping paths above and below', () => {
    const set = new FieldSet([
      ['spec', 'list'],
      ['spec', 'map', 'k'],
    ]);
    expect(set.overlapping(['spec', 'list', '0'])).toEqual([['spec', 'list']]);
    expect(set.overlapping(['spec', 'map'])).toEqual([['spec', 'map', 'k']]);
    expect(set.overlapping(['status'])).toEqual([]);
  });
});

describe('valueAt / deleteAt', () => {
  it('should read and delete nested values, pruning emptied parents', () => {
    const obj = { spec: { a: { b: 1 }, c: 2 } };
    expect(valueAt(obj, ['spec', 'a', 'b'])).toBe(1);
    expect(valueAt(obj, ['spec', 'x', 'b'])).toBeUndefined();
    deleteAt(obj, ['spec', 'a', 'b']);
    expect(obj).toEqual({ spec: { c: 2 } });
    deleteAt(obj, ['spec', 'c'], (p) => p.length === 1);
    expect(obj).toEqual({ spec: {} });
  });
});
