import { describe, it, expect } from '@jest/globals';
import { labelsOf, selectorOf, isSubset, selectsNonEmpty } from '../../src/index.js';

describe('labelsOf', () => {
  it('should prefer getLabels(), then metadata.labels, then labels', () => {
    expect(labelsOf({ getLabels: () => ({ a: '1' }), metadata: { labels: { b: '2' } } })).toEqual({ a: '1' });
    expect(labelsOf({ metadata: { labels: { b: '2' } }, labels: { c: '3' } })).toEqual({ b: '2' });
    expect(labelsOf({ labels: { c: '3' } })).toEqual({ c: '3' });
  });

  it('should give empty labels to an object without any', () => {
    expect(labelsOf({ metadata: { name: 'x' } })).toEqual({});
    expect(labelsOf('string')).toEqual({});
    expect(labelsOf(null)).toEqual({});
  });
});

describe('selectorOf', () => {
  it('should prefer getLabelSelector(), then spec.selector, then selector', () => {
    expect(selectorOf({ getLabelSelector: () => ({ a: '1' }), spec: { selector: { b: '2' } } })).toEqual({ a: '1' });
    expect(selectorOf({ spec: { selector: { b: '2' } }, selector: { c: '3' } })).toEqual({ b: '2' });
    expect(selectorOf({ selector: { c: '3' } })).toEqual({ c: '3' });
  });

  it('should read matchLabels from a LabelSelector', () => {
    expect(selectorOf({ spec: { selector: { matchLabels: { app: 'x' } } } })).toEqual({ app: 'x' });
    expect(selectorOf({ spec: { selector: { matchExpressions: [] } } })).toEqual({});
  });

  it('should give an empty selector to an object without one', () => {
    expect(selectorOf({ metadata: { name: 'x' } })).toEqual({});
  });

  it('should give each object its own selector when several are read in turn', () => {
    const objects = [{ spec: { selector: { a: '1' } } }, { spec: { selector: { b: '2' } } }, { selector: { c: '3' } }, { metadata: {} }];
    const expected = objects.map((o) => ({ ...(o.spec?.selector ?? (o as { selector?: object }).selector ?? {}) }));
    for (const order of [
      [0, 1, 0, 1, 0],
      [0, 1, 2, 0, 1, 2],
      [3, 0, 3, 2, 2, 1],
    ]) {
      for (const i of order) expect(selectorOf(objects[i])).toEqual(expected[i]);
    }
  });

  it('should call getLabelSelector() on every read, however often the same object is read', () => {
    let calls = 0;
    const o = { getLabelSelector: () => (calls++, { a: String(calls) }) };
    expect(selectorOf(o)).toEqual({ a: '1' });
    expect(selectorOf(o)).toEqual({ a: '2' });
    expect(calls).toBe(2);
  });
});

describe('isSubset', () => {
  it('should hold when every entry of the subset is in the superset', () => {
    expect(isSubset({ a: '1' }, { a: '1', b: '2' })).toBe(true);
    expect(isSubset({ a: '1' }, { a: '2' })).toBe(false);
    expect(isSubset({}, {})).toBe(true);
    expect(isSubset({}, { a: '1' })).toBe(true);
  });
});

describe('selectsNonEmpty', () => {
  it('should never select with an empty selector', () => {
    expect(selectsNonEmpty({}, { a: '1' })).toBe(false);
    expect(selectsNonEmpty({ a: '1' }, { a: '1', b: '2' })).toBe(true);
    expect(selectsNonEmpty({ a: '1' }, { b: '2' })).toBe(false);
  });
});
