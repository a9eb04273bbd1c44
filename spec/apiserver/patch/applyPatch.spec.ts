import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { applyPatch, patchTypeOf } from '../../../src/apiserver/patch/applyPatch.js';
import { patchSchemaFor } from '../../../src/apiserver/patch/patchStrategies.js';

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
  const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['x'] }, data: { a: '1', b: '2' } };
  const schema = patchSchemaFor('', 'ConfigMap');

  it('should apply merge patches as RFC 7386 says, and strategic ones with the strategies of the kind', () => {
    expect(applyPatch('merge', live, { data: { a: null, c: '3' } }, schema).data).toEqual({ b: '2', c: '3' });
    expect(applyPatch('merge', live, { metadata: { finalizers: ['y'] } }, schema).metadata).toEqual({ name: 'c', finalizers: ['y'] });
    expect(applyPatch('strategic', live, { data: { b: '9' } }, schema).data).toEqual({ a: '1', b: '9' });
    // finalizers are a set to strategic merge: the new one goes first, as on a real server.
    expect(applyPatch('strategic', live, { metadata: { finalizers: ['y'] } }, schema).metadata).toEqual({
      name: 'c',
      finalizers: ['y', 'x'],
    });
  });

  it('should apply JSON patches', () => {
    expect(applyPatch('json', live, [{ op: 'replace', path: '/data/a', value: 'x' }], schema).data).toEqual({ a: 'x', b: '2' });
  });

  it('should reject a merge patch that is not an object and a patch that replaces the object', () => {
    expect(() => applyPatch('merge', live, ['x'], schema)).toThrow(StatusError);
    expect(() => applyPatch('json', live, [{ op: 'replace', path: '', value: 3 }], schema)).toThrow(StatusError);
  });
});
