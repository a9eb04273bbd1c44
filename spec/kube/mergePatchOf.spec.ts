import { describe, it, expect } from '@jest/globals';
import { mergePatchOf } from '../../src/kube/index.js';
import { seededRandom } from '../../src/testing/index.js';

/** RFC 7386 MergePatch(target, patch), as an API server applies it. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** Random JSON without nulls (a merge patch cannot set a field to null). */
function randomJson(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth <= 0 || r < 0.3) return [1, 'a', true, 0, ''][Math.floor(rand() * 5)];
  if (r < 0.4) return [Math.floor(rand() * 3), 'x'];
  const o: Record<string, unknown> = {};
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) o[['a', 'b', 'c', 'd'][Math.floor(rand() * 4)]!] = randomJson(rand, depth - 1);
  return o;
}

describe('mergePatchOf', () => {
  it('should be undefined when nothing changed', () => {
    expect(mergePatchOf(undefined, undefined)).toBeUndefined();
    expect(mergePatchOf(3, 3)).toBeUndefined();
    expect(mergePatchOf({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toBeUndefined();
  });

  it('should carry changed and added keys and null out removed ones', () => {
    expect(mergePatchOf({ a: 1, b: 2, c: 3 }, { a: 1, b: 5, d: 4 })).toEqual({ b: 5, c: null, d: 4 });
  });

  it('should treat an undefined property as removed', () => {
    expect(mergePatchOf({ a: 1, b: 2 }, { a: 1, b: undefined })).toEqual({ b: null });
  });

  it('should diff nested objects recursively', () => {
    expect(mergePatchOf({ s: { ready: false, n: 1, keep: 'k' } }, { s: { ready: true, n: 1, keep: 'k' } })).toEqual({ s: { ready: true } });
  });

  it('should replace arrays and scalars whole', () => {
    expect(mergePatchOf({ c: [{ t: 'A', s: 'F' }, { t: 'B' }] }, { c: [{ t: 'A', s: 'T' }, { t: 'B' }] })).toEqual({
      c: [{ t: 'A', s: 'T' }, { t: 'B' }],
    });
    expect(mergePatchOf({ a: { x: 1 } }, { a: 'flat' })).toEqual({ a: 'flat' });
    expect(mergePatchOf({ a: 'flat' }, { a: { x: 1 } })).toEqual({ a: { x: 1 } });
  });

  it('should give the whole value when starting from nothing, and null when ending with nothing', () => {
    expect(mergePatchOf(undefined, { matched: 2 })).toEqual({ matched: 2 });
    expect(mergePatchOf({ matched: 2 }, undefined)).toBeNull();
  });

  it('should produce patches that turn `from` into `to` when applied (random JSON)', () => {
    const rand = seededRandom(42);
    for (let i = 0; i < 500; i++) {
      const from = { status: randomJson(rand, 3), spec: randomJson(rand, 2) };
      const to = { status: randomJson(rand, 3), spec: randomJson(rand, 2) };
      const patch = mergePatchOf(from, to);
      if (patch === undefined) expect(to).toEqual(from);
      else expect(applyMergePatch(from, patch)).toEqual(to);
    }
  });
});
