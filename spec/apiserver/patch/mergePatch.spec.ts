import { describe, expect, it } from '@jest/globals';
import type { JsonValue } from '../../../src/apiserver/apimachinery/json.js';
import { applyMergePatch } from '../../../src/apiserver/patch/mergePatch.js';

describe('applyMergePatch', () => {
  // The examples of RFC 7386, appendix A.
  it.each<[JsonValue, JsonValue, JsonValue]>([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('should merge %j with %j into %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('should not mutate the target', () => {
    const target = Object.freeze({ a: Object.freeze({ b: 1 }), c: 2 });
    const result = applyMergePatch(target, { a: { b: 2 }, c: null });
    expect(result).toEqual({ a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 }, c: 2 });
  });
});
