import { describe, it, expect } from '@jest/globals';
import { equals } from '../../src/index.js';

describe('equals', () => {
  it('should be true for identical values and NaN', () => {
    const o = { a: 1 };
    expect(equals(o, o)).toBe(true);
    expect(equals(1, 1)).toBe(true);
    expect(equals('a', 'a')).toBe(true);
    expect(equals(NaN, NaN)).toBe(true);
    expect(equals(null, null)).toBe(true);
    expect(equals(undefined, undefined)).toBe(true);
  });

  it('should compare primitives strictly', () => {
    expect(equals(1, '1')).toBe(false);
    expect(equals(null, undefined)).toBe(false);
    expect(equals(0, false)).toBe(false);
    expect(equals({}, null)).toBe(false);
  });

  it('should use an equals method when the first value has one', () => {
    const a = { v: 1, equals: (o: unknown) => (o as { v: number }).v % 2 === 1 };
    expect(equals(a, { v: 3 })).toBe(true);
    expect(equals(a, { v: 2 })).toBe(false);
  });

  it('should compare plain objects and arrays deeply', () => {
    expect(equals({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2 }] } })).toBe(true);
    expect(equals({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } })).toBe(false);
    expect(equals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(equals({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(equals([1, 2], [1, 2, 3])).toBe(false);
    expect(equals([1], { 0: 1 })).toBe(false);
  });

  it('should compare Dates by time', () => {
    expect(equals(new Date(5), new Date(5))).toBe(true);
    expect(equals(new Date(5), new Date(6))).toBe(false);
    expect(equals(new Date(5), 5)).toBe(false);
  });

  it('should compare Maps by entries, deeply', () => {
    expect(equals(new Map([['a', { x: 1 }]]), new Map([['a', { x: 1 }]]))).toBe(true);
    expect(equals(new Map([['a', { x: 1 }]]), new Map([['a', { x: 2 }]]))).toBe(false);
    expect(equals(new Map([['a', 1]]), new Map([['b', 1]]))).toBe(false);
    expect(equals(new Map(), {})).toBe(false);
  });

  it('should compare Sets by members, deeply for structured members', () => {
    expect(equals(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(equals(new Set([1, 2]), new Set([1, 3]))).toBe(false);
    expect(equals(new Set([{ a: 1 }]), new Set([{ a: 1 }]))).toBe(true);
    expect(equals(new Set([{ a: 1 }, { a: 2 }]), new Set([{ a: 2 }, { a: 1 }]))).toBe(true);
    expect(equals(new Set([{ a: 1 }, { a: 1 }]), new Set([{ a: 1 }, { a: 2 }]))).toBe(false);
    expect(equals(new Set(), [])).toBe(false);
  });

  it('should not equate objects of different classes', () => {
    class A {
      x = 1;
    }
    class B {
      x = 1;
    }
    expect(equals(new A(), new A())).toBe(true);
    expect(equals(new A(), new B())).toBe(false);
  });
});
