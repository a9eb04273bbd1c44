// White-box: a derived collection's per-key entry keeps its rarely used state in a side object.
import { describe, it, expect } from '@jest/globals';
import { KeyEntry } from '../../../src/engine/derived/keyEntry.js';

const rareOf = (e: KeyEntry<unknown>): unknown => (e as unknown as { rare: unknown }).rare;

describe('KeyEntry', () => {
  it('should keep several outputs, waiting inputs and a failure in one side object, dropped once all are gone', () => {
    const e = new KeyEntry<number>('k');
    const other = new KeyEntry<number>('o');
    expect(rareOf(e)).toBeUndefined();
    e.goodDeps = null;
    e.error = undefined;
    e.many = undefined;
    e.waiting = undefined;
    expect(rareOf(e)).toBeUndefined();
    e.many = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    e.waiting = [other];
    e.error = 'boom';
    expect([e.many.size, e.waiting, e.error, e.goodDeps]).toEqual([2, [other], 'boom', null]);
    e.many = undefined;
    e.error = undefined;
    expect(rareOf(e)).toBeDefined();
    e.stopWaiting(other);
    expect(e.waiting).toBeUndefined();
    expect(rareOf(e)).toBeUndefined();
  });

  it('should forget the input side and keep the output side when its input goes', () => {
    const e = new KeyEntry<number>('k');
    const other = new KeyEntry<number>('o');
    e.isInput = true;
    e.applied = true;
    e.changed = true;
    e.many = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    e.error = 'boom';
    e.waiting = [other];
    e.clearInput();
    expect([e.isInput, e.applied, e.changed, e.hasOutputs(), e.error, e.goodDeps]).toEqual([false, false, true, false, undefined, null]);
    expect(e.waiting).toEqual([other]);
    e.promoteNext();
    expect([e.owner, e.waiting, rareOf(e)]).toEqual([other, undefined, undefined]);
  });
});
