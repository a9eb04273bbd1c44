import { describe, it, expect } from '@jest/globals';
import { fieldSelectorMatcher, labelSelectorMatcher } from '../../src/kube/selectorMatch.js';

describe('labelSelectorMatcher', () => {
  it('should evaluate every operator of the label selector grammar', () => {
    const m = labelSelectorMatcher('app=web, tier in (a, b),env!=prod,!legacy,owner,n>3,k==v');
    const ok = { app: 'web', tier: 'b', env: 'dev', owner: 'x', n: '4', k: 'v' };
    expect(m(ok)).toBe(true);
    expect(m({ ...ok, app: 'db' })).toBe(false);
    expect(m({ ...ok, tier: 'c' })).toBe(false);
    expect(m({ ...ok, env: 'prod' })).toBe(false);
    expect(m({ ...ok, legacy: '' })).toBe(false);
    expect(m({ ...ok, n: '3' })).toBe(false);
    expect(m({ ...ok, n: 'x' })).toBe(false);
    const { owner: _owner, ...noOwner } = ok;
    expect(m(noOwner)).toBe(false);
    expect(labelSelectorMatcher('tier notin (a)')({})).toBe(true);
    expect(labelSelectorMatcher('n<3')({ n: '-1' })).toBe(true);
  });

  it('should select everything when there is no selector, or one it cannot read (never a false rejection)', () => {
    for (const text of [undefined, '', '  ', 'a in b', '=x', 'a b c']) expect(labelSelectorMatcher(text)({ any: 'thing' })).toBe(true);
    expect(labelSelectorMatcher('app=web')(undefined)).toBe(false);
  });
});

describe('fieldSelectorMatcher', () => {
  it('should check the metadata.name and metadata.namespace terms and ignore the fields it cannot evaluate', () => {
    const m = fieldSelectorMatcher('metadata.name=a,metadata.namespace!=kube-system,spec.nodeName=n1');
    expect(m({ name: 'a', namespace: 'default' })).toBe(true);
    expect(m({ name: 'b', namespace: 'default' })).toBe(false);
    expect(m({ name: 'a', namespace: 'kube-system' })).toBe(false);
    expect(fieldSelectorMatcher('metadata.name==a')({ name: 'a' })).toBe(true);
    expect(fieldSelectorMatcher('metadata.namespace=')({})).toBe(true);
  });

  it('should select everything for no selector or an escaped one', () => {
    expect(fieldSelectorMatcher(undefined)({ name: 'x' })).toBe(true);
    expect(fieldSelectorMatcher('metadata.name=a\\,b')({ name: 'x' })).toBe(true);
  });
});
