import { describe, it, expect } from '@jest/globals';
import { ScratchList } from '../../../src/engine/buffers/scratchList.js';

/** The list's backing store, to see what it still holds after a reset. */
const slotsOf = <T>(l: ScratchList<T>): Array<T | undefined> => (l as unknown as { items: Array<T | undefined> }).items;

describe('ScratchList', () => {
  it('should read back what was pushed, in order, and empty on reset', () => {
    const l = new ScratchList<string>();
    l.push('a');
    l.push('b');
    expect(l.length).toBe(2);
    expect([l.at(0), l.at(1)]).toEqual(['a', 'b']);
    l.reset();
    expect(l.length).toBe(0);
    l.push('c');
    expect(l.at(0)).toBe('c');
  });

  it.each([1, 16, 17, 5000])('should drop every reference a list of %i held, short or long, and keep its capacity', (n) => {
    const l = new ScratchList<{ i: number }>();
    for (let i = 0; i < n; i++) l.push({ i });
    const store = slotsOf(l);
    l.reset();
    expect(l.length).toBe(0);
    expect(slotsOf(l)).toBe(store);
    expect(store).toHaveLength(n);
    expect(store.every((x) => x === undefined)).toBe(true);
    // Refilled shorter: the slots past the new length stay empty, and a second reset clears only what it used.
    for (let i = 0; i < 3; i++) l.push({ i: -i });
    l.reset();
    expect(store.every((x) => x === undefined)).toBe(true);
  });
});
