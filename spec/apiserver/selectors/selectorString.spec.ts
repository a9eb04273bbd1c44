import { describe, expect, it } from '@jest/globals';
import { selectorString } from '../../../src/apiserver/selectors/selectorString.js';

describe('selectorString', () => {
  it.each([
    ['no selector', undefined, ''],
    ['an empty label selector', { matchLabels: {} }, ''],
    ['match labels, sorted by key', { matchLabels: { tier: 'web', app: 'shop' } }, 'app=shop,tier=web'],
    [
      'every expression operator, values sorted',
      {
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['b', 'a'] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      'env notin (dev),gpu,!legacy,zone in (a,b)',
    ],
    ['labels and expressions together', { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'app', operator: 'Exists' }] }, 'app=x,app'],
    ['a ReplicationController map selector', { b: '2', a: '1' }, 'a=1,b=2'],
  ])('should print %s', (_what, selector, text) => {
    expect(selectorString(selector)).toBe(text);
  });
});
