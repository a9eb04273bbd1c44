import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { applyPatch, patchTypeOf } from '../../../src/apiserver/patch/applyPatch.js';

describe('patchTypeOf', () => {
  it('should map the four patch media types', () => {
    expect(patchTypeOf('application/json-patch+json')).toBe('json');
    expect(patchTypeOf('application/merge-patch+json; charset=utf-8')).toBe('merge');
    expect(patchTypeOf('application/strategic-merge-patch+json')).toBe('strategic');
    expect(patchTypeOf('application/apply-patch+yaml')).toBe('apply');
  });

  it('should answer 415 for anything else', () => {
    for (const ct of [undefined, 'application/json', 'text/plain']) {
      try {
        patchTypeOf(ct);
        throw new Error('no error');
      } catch (e) {
        expect((e as StatusError).code).toBe(415);
      }
    }
  });
});

describe('applyPatch', () => {
  const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } };

  it('should apply merge and strategic patches as RFC 7386 merge patches', () => {
    expect(applyPatch('merge', live, { data: { a: null, c: '3' } }).data).toEqual({ b: '2', c: '3' });
    expect(applyPatch('strategic', live, { data: { b: '9' } }).data).toEqual({ a: '1', b: '9' });
  });

  it('should apply JSON patches', () => {
    expect(applyPatch('json', live, [{ op: 'replace', path: '/data/a', value: 'x' }]).data).toEqual({ a: 'x', b: '2' });
  });

  it('should reject a merge patch that is not an object and a patch that replaces the object', () => {
    expect(() => applyPatch('merge', live, ['x'])).toThrow(StatusError);
    expect(() => applyPatch('json', live, [{ op: 'replace', path: '', value: 3 }])).toThrow(StatusError);
  });
});
