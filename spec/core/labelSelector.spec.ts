import { describe, it, expect } from '@jest/globals';
import { labelSelectorOf, matchesLabelSelector, parseLabelSelector, UsageError, type LabelSelector } from '../../src/index.js';
import { CompiledSelector, filedSelects, readSelector } from '../../src/core/labelSelector.js';

const labels = { app: 'web', tier: 'front', empty: '' };

describe('parseLabelSelector', () => {
  it('should turn equalities into matchLabels and the rest into expressions', () => {
    expect(parseLabelSelector('app=web,tier==front,track!=canary,env in (a,b),zone notin (x),owner,!legacy')).toEqual({
      matchLabels: { app: 'web', tier: 'front' },
      matchExpressions: [
        { key: 'track', operator: 'NotIn', values: ['canary'] },
        { key: 'env', operator: 'In', values: ['a', 'b'] },
        { key: 'zone', operator: 'NotIn', values: ['x'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
  });

  it('should read blank text as the empty selector, which selects everything', () => {
    expect(parseLabelSelector('  ')).toEqual({});
    expect(matchesLabelSelector(parseLabelSelector(''), {})).toBe(true);
  });

  it('should keep a second equality on one key as an In expression (both must hold)', () => {
    const s = parseLabelSelector('app=web,app=db');
    expect(s).toEqual({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] });
    expect(matchesLabelSelector(s, { app: 'web' })).toBe(false);
  });

  it('should accept the empty value and prefixed keys', () => {
    expect(parseLabelSelector('empty=,app.kubernetes.io/name=web')).toEqual({
      matchLabels: { empty: '', 'app.kubernetes.io/name': 'web' },
    });
  });

  it.each([
    ['app in ()', "values set can't be empty"],
    ['app in (a', "expected: ',' or ')'"],
    ['=web', 'expected: !, identifier'],
    ['app=web,', 'expected: !, identifier'],
    ['bad key=1', "found 'key'"],
    ['Upper.Prefix/x=1', 'prefix part must be a DNS subdomain'],
    ['-app=1', 'name part must consist of'],
    [`app=${'v'.repeat(64)}`, 'invalid label value'],
    ['version>2', "'>' has no LabelSelector operator"],
  ])('should reject %j naming the text and the problem', (text, problem) => {
    expect(() => parseLabelSelector(text)).toThrow(UsageError);
    expect(() => parseLabelSelector(text)).toThrow(`invalid label selector ${JSON.stringify(text)}`);
    expect(() => parseLabelSelector(text)).toThrow(problem);
  });
});

describe('matchesLabelSelector', () => {
  it.each<[LabelSelector, boolean]>([
    [{}, true],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'db' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, false],
    [{ matchExpressions: [{ key: 'missing', operator: 'In', values: ['x'] }] }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ matchExpressions: [{ key: 'missing', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'empty', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'missing', operator: 'Exists' }] }, false],
    [{ matchExpressions: [{ key: 'missing', operator: 'DoesNotExist' }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist', values: [] }] }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] }, true],
    [{ matchLabels: { app: 'db' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] }, false],
  ])('should evaluate %j as %s', (selector, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  it.each<[unknown, string]>([
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, 'values must be non-empty when operator is In'],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] }, 'values must be non-empty when operator is NotIn'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values must be empty when operator is Exists'],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] }, 'values must be empty when operator is DoesNotExist'],
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, 'is not one of In, NotIn, Exists, DoesNotExist'],
    [{ matchExpressions: [{ key: 'bad key', operator: 'Exists' }] }, 'invalid label key'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['bad value'] }] }, 'invalid label value'],
    [{ matchExpressions: 'app' }, 'matchExpressions must be an array'],
    [{ matchLabels: { a: 1 } }, 'must be a string'],
    [null, 'expected an object'],
  ])('should reject %j, naming it', (selector, problem) => {
    expect(() => matchesLabelSelector(selector as LabelSelector, labels)).toThrow(UsageError);
    expect(() => matchesLabelSelector(selector as LabelSelector, labels)).toThrow(problem);
  });
});

describe('labelSelectorOf', () => {
  it('should read a plain map as matchLabels and a LabelSelector as it is', () => {
    const full = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' as const }] };
    expect(labelSelectorOf({ spec: { selector: { app: 'web' } } })).toEqual({ matchLabels: { app: 'web' } });
    expect(labelSelectorOf({ spec: { selector: full } })).toBe(full);
    expect(labelSelectorOf({ selector: full })).toBe(full);
    expect(labelSelectorOf({ getLabelSelector: () => full })).toBe(full);
    expect(labelSelectorOf({ metadata: { name: 'x' } })).toEqual({});
    expect(labelSelectorOf(undefined)).toEqual({});
  });

  it('should reject an invalid selector', () => {
    expect(() => labelSelectorOf({ spec: { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } })).toThrow(
      'values must be non-empty when operator is In',
    );
  });
});

describe('readSelector (the engine view of a selector)', () => {
  it('should read a selector without expressions as its label map, allocating nothing', () => {
    const map = { app: 'web' };
    expect(readSelector({ spec: { selector: map } })).toBe(map);
    expect(readSelector({ spec: { selector: { matchLabels: map } } })).toBe(map);
    expect(readSelector({ spec: { selector: { matchLabels: map, matchExpressions: [] } } })).toBe(map);
  });

  it('should compile a selector with expressions once per selector object', () => {
    const selector = { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] };
    const a = readSelector({ spec: { selector } });
    expect(a).toBeInstanceOf(CompiledSelector);
    expect(readSelector({ spec: { selector }, v: 2 })).toBe(a);
  });

  it('should test selectors the way the selector filters do', () => {
    const exprOnly = readSelector({ spec: { selector: { matchExpressions: [{ key: 'legacy', operator: 'DoesNotExist' }] } } });
    expect(filedSelects(exprOnly, { app: 'web' }, true)).toBe(true);
    expect(filedSelects(exprOnly, { legacy: 'y' }, false)).toBe(false);
    expect(filedSelects({}, { app: 'web' }, false)).toBe(true);
    expect(filedSelects({}, { app: 'web' }, true)).toBe(false);
    expect(filedSelects({ app: 'web' }, { app: 'web', x: 'y' }, true)).toBe(true);
  });
});
