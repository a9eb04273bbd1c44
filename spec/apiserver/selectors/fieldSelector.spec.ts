import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { BUILTIN_KINDS } from '../../../src/apiserver/kinds/builtinKinds.js';
import { parseFieldSelector, selectableFieldValues } from '../../../src/apiserver/selectors/fieldSelector.js';

const fields = { 'metadata.name': 'a', 'metadata.namespace': 'ns1' };

describe('parseFieldSelector', () => {
  it.each([
    ['', true],
    ['metadata.name=a', true],
    ['metadata.name==a', true],
    ['metadata.name!=a', false],
    ['metadata.name=b', false],
    ['metadata.namespace=ns1,metadata.name=a', true],
    ['metadata.namespace=ns1,metadata.name!=a', false],
    ['metadata.namespace!=ns2', true],
  ])('should evaluate %j as %s', (selector, expected) => {
    expect(parseFieldSelector(selector).matches(fields)).toBe(expected);
  });

  it('should unescape values', () => {
    const s = parseFieldSelector('metadata.name=a\\,b');
    expect(s.requirements).toEqual([{ field: 'metadata.name', operator: '=', value: 'a,b' }]);
  });

  it('should reject unsupported fields and malformed terms with 400', () => {
    for (const bad of ['spec.nodeName=x', 'metadata.name', 'nonsense']) {
      expect(() => parseFieldSelector(bad)).toThrow(StatusError);
      try {
        parseFieldSelector(bad);
      } catch (e) {
        expect((e as StatusError).code).toBe(400);
      }
    }
  });

  it('should accept the extra fields a kind supports', () => {
    const pods = BUILTIN_KINDS.find((rt) => rt.kind === 'Pod')!;
    const s = parseFieldSelector('spec.nodeName=n1,status.phase!=Failed', ['metadata.name', ...pods.selectableFields]);
    expect(s.matches({ 'spec.nodeName': 'n1', 'status.phase': 'Running' })).toBe(true);
  });
});

describe('selectableFieldValues', () => {
  it('should read nested fields and treat missing ones as empty', () => {
    const pods = BUILTIN_KINDS.find((rt) => rt.kind === 'Pod')!;
    const values = selectableFieldValues(pods, { metadata: { name: 'p', namespace: 'n' }, status: { phase: 'Running' } });
    expect(values['metadata.name']).toBe('p');
    expect(values['status.phase']).toBe('Running');
    expect(values['spec.nodeName']).toBe('');
  });
});
