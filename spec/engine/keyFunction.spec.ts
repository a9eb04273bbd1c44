// White-box: a collection's key function and key test.
import { describe, it, expect } from '@jest/globals';
import { KeyError } from '../../src/index.js';
import { safeKey, makeKeyFn, makeKeyTest } from '../../src/engine/keyFunction.js';

describe('makeKeyTest', () => {
  it('should compare through the key option when a collection has one', () => {
    const byId = (o: { id: number }): string => `#${o.id}`;
    const keyFn = makeKeyFn(() => 'C', byId as (o: never) => string);
    const test = makeKeyTest(keyFn, byId as (o: never) => string);
    expect(test({ id: 1, metadata: { name: 'x' } }, '#1')).toBe(true);
    expect(test({ id: 1, metadata: { name: 'x' } }, 'x')).toBe(false);
  });
});

describe('makeKeyFn', () => {
  it('should name the collection when the key option throws or returns something other than a string', () => {
    const throws = makeKeyFn(() => 'Pods', (() => {
      throw new Error('boom');
    }) as (o: never) => string);
    expect(() => throws({})).toThrow(KeyError);
    expect(() => throws({})).toThrow(/collection "Pods".*the key option threw: boom/);
    const numeric = makeKeyFn(() => 'Pods', (() => 7) as unknown as (o: never) => string);
    expect(() => numeric({})).toThrow(/collection "Pods".*the key option returned number, not a string/);
  });

  it('should key by keyOf without a key option, naming the collection when keyOf cannot', () => {
    const keyFn = makeKeyFn(() => 'Pods');
    expect(keyFn({ metadata: { name: 'a', namespace: 'ns' } })).toBe('ns/a');
    expect(() => keyFn({ spec: {} })).toThrow(/collection "Pods": cannot derive a key/);
  });
});

describe('safeKey', () => {
  it("should give the collection's key, or undefined where its key function throws", () => {
    const c = { keyOf: makeKeyFn(() => 'Pods') };
    expect(safeKey(c, { metadata: { name: 'a', namespace: 'ns' } })).toBe('ns/a');
    expect(safeKey(c, { spec: {} })).toBeUndefined();
  });
});
