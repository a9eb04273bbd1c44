import { describe, it, expect } from '@jest/globals';
import { equals } from '../../src/index.js';
import { seededRandom } from '../../src/testing/index.js';
import { keyPlacesInUse } from '../../src/core/equals.js';

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

  it('should not equate plain data with an object of another kind that holds the same fields', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const bare = (o: object): object => Object.assign(Object.create(null) as object, o);
    const pairs: Array<[unknown, unknown]> = [
      [{ x: 1, y: 2 }, new Point(1, 2)],
      [{ x: 1, y: 2 }, bare({ x: 1, y: 2 })],
      [{}, new Map()],
      [{}, new Date(0)],
      [{}, []],
      [{ 0: 'a' }, ['a']],
      [{ meta: { x: 1, y: 2 } }, { meta: new Point(1, 2) }],
    ];
    for (const [a, b] of pairs) {
      expect([a, b, equals(a, b)]).toEqual([a, b, false]);
      expect([b, a, equals(b, a)]).toEqual([b, a, false]);
    }
    expect(equals(bare({ x: 1 }), bare({ x: 1 }))).toBe(true);
  });

  it('should compare prototypes even for objects whose constructor reads as Object', () => {
    // A prototype given as an object literal inherits `constructor` from Object.prototype, as plain data does.
    function Legacy(this: { x: number }, x: number) {
      this.x = x;
    }
    Legacy.prototype = { describe: () => 'legacy' };
    const legacy = (x: number): object => new (Legacy as unknown as new (x: number) => object)(x);
    expect((legacy(1) as { constructor: unknown }).constructor).toBe(Object);
    expect(equals(legacy(1), legacy(1))).toBe(true);
    expect(equals(legacy(1), legacy(2))).toBe(false);
    expect(equals(legacy(1), { x: 1 })).toBe(false);
    expect(equals({ x: 1 }, legacy(1))).toBe(false);
    // An own `constructor` field that happens to be Object: still the prototypes decide.
    const bare = Object.assign(Object.create(null) as object, { constructor: Object, x: 1 });
    expect(equals({ constructor: Object, x: 1 }, bare)).toBe(false);
    expect(equals(bare, { constructor: Object, x: 1 })).toBe(false);
    expect(equals({ constructor: Object, x: 1 }, { constructor: Object, x: 1 })).toBe(true);
  });

  it('should skip keys inherited from an enumerable prototype, and still compare the prototypes', () => {
    // for…in also yields inherited enumerable keys; only own keys are data.
    const withProto = (proto: object, x: number): object => Object.assign(Object.create(proto) as object, { x });
    const shared = { shared: 1 };
    expect(equals(withProto(shared, 1), withProto(shared, 1))).toBe(true);
    expect(equals(withProto(shared, 1), withProto(shared, 2))).toBe(false);
    expect(equals(withProto(shared, 1), withProto({ shared: 1 }, 1))).toBe(false);
    expect(equals(withProto(shared, 1), { x: 1 })).toBe(false);
    expect(equals({ x: 1 }, withProto(shared, 1))).toBe(false);
  });

  it('should compare instances of one class field by field, and never equate them with Maps, Sets or Dates', () => {
    class Box {
      constructor(readonly v: unknown) {}
    }
    expect(equals(new Box({ a: [1] }), new Box({ a: [1] }))).toBe(true);
    expect(equals(new Box(1), new Box(2))).toBe(false);
    expect(equals(new Box(1), Object.assign(new Box(1), { extra: true }))).toBe(false);
    expect(equals(Object.assign(new Box(1), { p: 1 }), Object.assign(new Box(1), { q: 1 }))).toBe(false);
    for (const other of [new Map(), new Set(), new Date(0)]) {
      expect(equals(new Box(1), other)).toBe(false);
    }
    expect(equals(new Set([1]), new Set([1, 2]))).toBe(false);
    expect(equals(new Set([1]), new Map([[1, 1]]))).toBe(false);
  });

  it('should find a scalar difference without comparing nested objects', () => {
    let calls = 0;
    const nested = { equals: () => (calls++, true) };
    expect(equals({ meta: nested, ip: '10.0.0.1' }, { meta: {}, ip: '10.0.0.2' })).toBe(false);
    expect(calls).toBe(0);
    expect(equals({ meta: nested, ip: '10.0.0.1' }, { meta: {}, ip: '10.0.0.1' })).toBe(true);
    expect(calls).toBe(1);
    // A list of another length, likewise.
    expect(equals({ meta: nested, names: ['a'] }, { meta: {}, names: ['a', 'b'] })).toBe(false);
    expect(calls).toBe(1);
    // ...unless the list has an equals method of its own, which decides.
    const lenient = Object.assign(['a'], { equals: () => true });
    expect(equals({ names: lenient }, { names: ['a', 'b'] })).toBe(true);
  });

  it('should compare every nested value, however many an object holds', () => {
    const make = (last: number): Record<string, unknown> => ({ a: { v: 1 }, b: [1], c: { v: 2 }, d: [last], ip: 'x' });
    expect(equals(make(3), make(3))).toBe(true);
    // Only the fourth nested value differs: past the two that are compared without a second walk.
    expect(equals(make(3), make(4))).toBe(false);
    expect(equals({ a: {}, b: {}, c: { v: NaN } }, { a: {}, b: {}, c: { v: NaN } })).toBe(true);
    let calls = 0;
    const third = { equals: () => (calls++, false) };
    expect(equals({ a: {}, b: {}, c: third }, { a: {}, b: {}, c: {} })).toBe(false);
    expect(calls).toBe(1);
  });

  it('should tell missing keys from keys holding undefined, at any depth', () => {
    expect(equals({ a: { x: undefined } }, { a: {} })).toBe(false);
    expect(equals({ a: {} }, { a: { x: undefined } })).toBe(false);
    expect(equals({ a: { x: 1 }, b: undefined }, { a: { x: 1 }, c: undefined })).toBe(false);
    expect(equals(Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 }))).toBe(true);
    expect(equals(Object.assign(Object.create(null), { a: 1 }), { a: 1 })).toBe(false);
  });

  it('should not depend on the order in which keys were added', () => {
    expect(equals({ a: 1, b: { x: 1, y: 2 } }, { b: { y: 2, x: 1 }, a: 1 })).toBe(true);
    expect(equals({ a: 1, b: 2 }, { b: 2, a: 3 })).toBe(false);
    expect(equals({ a: 1, b: 2 }, { b: 2, c: 1 })).toBe(false);
    // Integer-like keys come first in enumeration, whatever the order of insertion.
    expect(equals({ x: 1, 2: 'b', 1: 'a' }, { 1: 'a', x: 1, 2: 'b' })).toBe(true);
  });

  it('should count only own enumerable keys, on either side', () => {
    // A key the other object only inherits, with the very value it inherits.
    const inherits = { toString: Object.prototype.toString, a: 1 };
    expect(equals(inherits, { a: 1, b: 2 })).toBe(false);
    expect(equals({ a: 1, b: 2 }, inherits)).toBe(false);
    const hidden = Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false });
    expect(equals(hidden, { a: 1 })).toBe(true);
    expect(equals({ a: 1 }, hidden)).toBe(true);
    expect(equals({ b: 2, a: 1 }, hidden)).toBe(false);
    expect(equals(hidden, { b: 2, a: 1 })).toBe(false);
  });

  it('should stay right when a getter compares other objects in the middle of a walk', () => {
    const reentrant = (inner: boolean): Record<string, unknown> => ({
      a: 1,
      get b(): boolean {
        return equals({ p: 1, q: { r: 2 } }, { p: 1, q: { r: inner ? 2 : 3 } });
      },
      c: 'x',
    });
    expect(equals(reentrant(true), reentrant(true))).toBe(true);
    expect(equals(reentrant(true), reentrant(false))).toBe(false);
    expect(equals(reentrant(true), { a: 1, b: true, c: 'x' })).toBe(true);
    expect(equals(reentrant(false), { c: 'x', a: 1, b: false })).toBe(true);
    // A walk the getter starts must not take the outer walk's places: here that would swap the outer
    // object's key `a` for the inner one's `x`, and the outer objects would look alike.
    const outer = {
      a: undefined,
      get b(): boolean {
        return equals({ x: 1 }, { x: 1 });
      },
    };
    expect(equals(outer, { x: 1, b: true })).toBe(false);
    expect(keyPlacesInUse()).toBe(0);
  });

  it('should keep comparing correctly after a getter throws in the middle of a walk', () => {
    const throwing = {
      a: 1,
      get b(): never {
        throw new Error('getter');
      },
    };
    for (let i = 0; i < 3; i++) {
      expect(() => equals({ x: { y: throwing } }, { x: { y: { a: 1, b: 2 } } })).toThrow('getter');
      expect(keyPlacesInUse()).toBe(0);
    }
    expect(equals({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 2 } })).toBe(true);
    expect(equals({ a: 1, b: { c: 2 } }, { b: { c: 2 }, a: 2 })).toBe(false);
  });

  it('should compare objects with very many keys, then small ones as before', () => {
    const wide = (v: number): Record<string, number> =>
      Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i === 4999 ? v : i]));
    expect(equals(wide(1), wide(1))).toBe(true);
    expect(equals(wide(1), wide(2))).toBe(false);
    expect(equals({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
  });

  it('should agree with a direct recursive definition on random plain data', () => {
    // The reference: the definition of deep equality for JSON-like data, written for clarity.
    const reference = (a: unknown, b: unknown): boolean => {
      if (a === b) return true;
      if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
      if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
      if (Array.isArray(a) !== Array.isArray(b)) return false;
      const ka = Object.keys(a).sort();
      const kb = Object.keys(b).sort();
      if (ka.join('\u0000') !== kb.join('\u0000')) return false;
      return ka.every((k) => reference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
    };
    const rand = seededRandom(6);
    const leaves = [0, 1, NaN, '', 'a', 'b', true, false, null, undefined];
    const gen = (depth: number): unknown => {
      const r = rand();
      if (depth === 0 || r < 0.4) return leaves[Math.floor(rand() * leaves.length)];
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 3) }, () => gen(depth - 1));
      const o: Record<string, unknown> = {};
      for (const k of ['a', 'b', 'c', 'd']) if (rand() < 0.5) o[k] = gen(depth - 1);
      return o;
    };
    // A near copy: mostly the same value, sometimes with one change somewhere inside.
    const mutate = (v: unknown): unknown => {
      if (rand() < 0.15) return gen(2);
      if (Array.isArray(v)) return v.map(mutate);
      if (typeof v === 'object' && v !== null) {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) if (rand() > 0.05) o[k] = mutate(x);
        return o;
      }
      return v;
    };
    let same = 0;
    for (let i = 0; i < 5000; i++) {
      const a = gen(4);
      const b = rand() < 0.5 ? mutate(a) : gen(4);
      const want = reference(a, b);
      if (want) same++;
      expect([i, equals(a, b)]).toEqual([i, want]);
      expect([i, equals(b, a)]).toEqual([i, want]);
    }
    // The generator must exercise both answers.
    expect(same).toBeGreaterThan(500);
    expect(same).toBeLessThan(4500);
  });
});
