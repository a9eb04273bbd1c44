import { describe, it, expect, afterEach } from '@jest/globals';
import { produce } from 'immer';
import { freezeInput, freezeOutput } from '../../src/core/freeze.js';
import { isStrictMode, setStrictMode } from '../../src/index.js';

// What collections freeze: shallowly by default, deeply in strict mode, and exactly the objects immer's
// freeze would (the shallow fast path for plain objects and arrays must not change that).
describe('freezeInput / freezeOutput', () => {
  const was = isStrictMode();
  afterEach(() => setStrictMode(was));

  it('should freeze plain objects, null-prototype objects and arrays shallowly by default', () => {
    setStrictMode(false);
    for (const freeze of [freezeInput, freezeOutput]) {
      const o = freeze({ a: { b: 1 }, list: [1] });
      expect(Object.isFrozen(o)).toBe(true);
      expect(Object.isFrozen(o.a)).toBe(false);
      expect(Object.isFrozen(o.list)).toBe(false);
      const bare = freeze(Object.assign(Object.create(null) as Record<string, number>, { x: 1 }));
      expect(Object.isFrozen(bare)).toBe(true);
      expect(Object.isFrozen(freeze([{ y: 1 }]))).toBe(true);
    }
  });

  it('should freeze a plain object whatever its own `constructor` key holds, and leave a class instance, as immer does', () => {
    setStrictMode(false);
    class Point {
      x = 1;
    }
    for (const freeze of [freezeInput, freezeOutput]) {
      // The first fails the fast path's test (`constructor === Object`) and immer freezes it; the second passes it.
      expect(Object.isFrozen(freeze({ constructor: 'x', a: 1 }))).toBe(true);
      expect(Object.isFrozen(freeze({ constructor: Object, a: 1 }))).toBe(true);
      expect(Object.isFrozen(freeze(new Point()))).toBe(false);
    }
  });

  it('should freeze deeply in strict mode', () => {
    setStrictMode(true);
    const o = freezeInput({ a: { b: { c: [1, { d: 2 }] } } });
    expect(Object.isFrozen(o.a.b.c[1])).toBe(true);
  });

  it('should leave what immer leaves: class instances, drafts and primitives; make Maps read-only', () => {
    setStrictMode(false);
    class Pod {
      constructor(public name: string) {}
    }
    expect(Object.isFrozen(freezeInput(new Pod('p')))).toBe(false);
    expect(freezeInput(5)).toBe(5);
    expect(freezeInput(null)).toBe(null);
    const m = freezeInput(new Map([['k', 1]]));
    expect(() => m.set('k', 2)).toThrow();
    const base = { a: 1 };
    const next = produce(base, (draft) => {
      freezeInput(draft);
      draft.a = 2; // still a writable draft
    });
    expect(next.a).toBe(2);
  });

  it('should return an already frozen object as it is', () => {
    const o = Object.freeze({ a: { b: 1 } });
    expect(freezeInput(o)).toBe(o);
    expect(Object.isFrozen(o.a)).toBe(false);
  });
});
