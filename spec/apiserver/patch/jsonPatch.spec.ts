import { describe, expect, it } from '@jest/globals';
import type { JsonValue } from '../../../src/apiserver/apimachinery/json.js';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { applyJsonPatch, parsePointer } from '../../../src/apiserver/patch/jsonPatch.js';

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof StatusError ? e.code : -1;
  }
  return undefined;
}

describe('applyJsonPatch', () => {
  // Examples from RFC 6902, appendix A.
  it.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' }],
    ['add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'move a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    [
      'move an array element',
      { foo: ['all', 'grass', 'cows', 'eat'] },
      [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] },
    ],
    [
      'test then add',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
        { op: 'add', path: '/x', value: 1 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'], x: 1 },
    ],
    [
      'add a nested member object',
      { foo: 'bar' },
      [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      { foo: 'bar', child: { grandchild: {} } },
    ],
    [
      'escape ~0 and ~1',
      { '/': 9, '~1': 10 },
      [
        { op: 'test', path: '/~01', value: 10 },
        { op: 'replace', path: '/~1', value: 1 },
      ],
      { '/': 1, '~1': 10 },
    ],
    ['add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['copy a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
    ['replace the root', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
  ])('should %s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  it('should not mutate the target', () => {
    const doc = { a: [1, 2], b: { c: 1 } };
    applyJsonPatch(doc, [
      { op: 'remove', path: '/a/0' },
      { op: 'replace', path: '/b/c', value: 2 },
    ]);
    expect(doc).toEqual({ a: [1, 2], b: { c: 1 } });
  });

  it('should fail with 422 when an operation does not apply', () => {
    expect(codeOf(() => applyJsonPatch({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 1 }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/5', value: 1 }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/01', value: 1 }]))).toBe(422);
    expect(codeOf(() => applyJsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]))).toBe(422);
  });

  it('should fail with 400 for a malformed document', () => {
    expect(codeOf(() => applyJsonPatch({}, { op: 'add' }))).toBe(400);
    expect(codeOf(() => applyJsonPatch({}, [{ op: 'frobnicate', path: '/a' }]))).toBe(400);
    expect(codeOf(() => applyJsonPatch({}, [{ op: 'add', path: '/a' }]))).toBe(400);
    expect(codeOf(() => applyJsonPatch({}, [{ op: 'move', path: '/a' }]))).toBe(400);
  });
});

describe('parsePointer', () => {
  it('should split and unescape tokens', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/a~1b/~0c/')).toEqual(['a/b', '~c', '']);
  });
});
