import { describe, it, expect } from '@jest/globals';
import { latest, items, type Event } from '../../src/index.js';

describe('latest', () => {
  it('should be new when present, else old', () => {
    expect(latest<string>({ type: 'add', new: 'n' })).toBe('n');
    expect(latest<string>({ type: 'update', old: 'o', new: 'n' })).toBe('n');
    expect(latest<string>({ type: 'delete', old: 'o' })).toBe('o');
  });

  it('should keep falsy values', () => {
    expect(latest<number>({ type: 'update', old: 1, new: 0 })).toBe(0);
    expect(latest<string>({ type: 'add', new: '' })).toBe('');
  });
});

describe('items', () => {
  it('should list old then new, without the missing ones', () => {
    const events: Array<[Event<string>, string[]]> = [
      [{ type: 'add', new: 'n' }, ['n']],
      [{ type: 'update', old: 'o', new: 'n' }, ['o', 'n']],
      [{ type: 'delete', old: 'o' }, ['o']],
    ];
    for (const [e, want] of events) expect(items(e)).toEqual(want);
  });
});
