import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { parseLabelSelector } from '../../../src/apiserver/selectors/labelSelector.js';

const labels = { app: 'web', tier: 'front', version: '3', empty: '' };

describe('parseLabelSelector', () => {
  it('should match everything when empty', () => {
    expect(parseLabelSelector('').matches(labels)).toBe(true);
    expect(parseLabelSelector('  ').matches(undefined)).toBe(true);
  });

  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db, cache)', false],
    ['missing in (a)', false],
    ['app notin (db,cache)', true],
    ['app notin (web)', false],
    ['missing notin (a)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['version>2', true],
    ['version<3', false],
    ['app>2', false],
    ['empty=', true],
    ['empty in (,x)', true],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    [' app = web , tier in ( front ) , !legacy ', true],
    ['example.com/owner', false],
  ])('should evaluate %j as %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('should fold = and == into in, != into notin', () => {
    expect(parseLabelSelector('a=1,b==2,c!=3').requirements).toEqual([
      { key: 'a', operator: 'in', values: ['1'] },
      { key: 'b', operator: 'in', values: ['2'] },
      { key: 'c', operator: 'notin', values: ['3'] },
    ]);
  });

  it('should accept prefixed keys', () => {
    const s = parseLabelSelector('app.kubernetes.io/name=web');
    expect(s.matches({ 'app.kubernetes.io/name': 'web' })).toBe(true);
  });

  it.each([
    'app in ()',
    'app in (a',
    'app in a',
    '=web',
    'app=web,',
    'app=web extra',
    '!',
    'version>x',
    'bad key=1',
    'Upper.Prefix/x=1',
    '-app=1',
    `app=${'v'.repeat(64)}`,
  ])('should reject %j with 400 BadRequest', (selector) => {
    let error: unknown;
    try {
      parseLabelSelector(selector);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(400);
    expect((error as StatusError).reason).toBe('BadRequest');
  });
});
