import { describe, it, expect } from '@jest/globals';
import { visibleValues } from '../../../src/engine/derived/visibleValues.js';
import { KeyEntry } from '../../../src/engine/derived/keyEntry.js';

const entries = (values: Array<string | undefined>): Map<string, KeyEntry<string>> => {
  const m = new Map<string, KeyEntry<string>>();
  values.forEach((v, i) => {
    const e = new KeyEntry<string>(`k${i}`);
    e.value = v;
    m.set(e.key, e);
  });
  return m;
};

describe('visibleValues', () => {
  it('should step through the values that are set, in the entries’ order', () => {
    expect([...visibleValues(entries([undefined, 'a', undefined, undefined, 'b', 'c', undefined]))]).toEqual(['a', 'b', 'c']);
    expect([...visibleValues(entries([]))]).toEqual([]);
    expect([...visibleValues(entries([undefined, undefined]))]).toEqual([]);
  });

  it('should keep two iterators over the same entries apart, and stay done once done', () => {
    const m = entries(['a', undefined, 'b']);
    const x = visibleValues(m);
    const y = visibleValues(m);
    expect(x.next()).toEqual({ done: false, value: 'a' });
    expect(y.next()).toEqual({ done: false, value: 'a' });
    expect(y.next()).toEqual({ done: false, value: 'b' });
    expect(x.next()).toEqual({ done: false, value: 'b' });
    expect(x.next()).toEqual({ done: true, value: undefined });
    expect(x.next()).toEqual({ done: true, value: undefined });
    expect(y.next().done).toBe(true);
    expect(x[Symbol.iterator]()).toBe(x);
  });
});
