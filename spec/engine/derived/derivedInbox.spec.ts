import { describe, it, expect } from '@jest/globals';
import type { Event } from '../../../src/index.js';
import { DerivedInbox } from '../../../src/engine/derived/derivedInbox.js';
import { DependencyIndex, type TrackedInput } from '../../../src/engine/derived/dependencyIndex.js';

// The inbox holds batches by reference until the flush: the parent's become inputs in order, the fetched
// collections' go to the dependency index, and a drained or cleared inbox hands nothing over again.
const add = (v: number): Event<{ v: number }> => ({ type: 'add', new: { v } });
const del = (v: number): Event<{ v: number }> => ({ type: 'delete', old: { v } });

describe('DerivedInbox', () => {
  it('should hand over the parent’s events in order, a later value of a key after an earlier one, then nothing', () => {
    const inbox = new DerivedInbox();
    inbox.fromParent([add(1), add(2)], ['a', 'b']);
    inbox.fromParent([add(3), del(2)], ['a', 'b']);
    const taken: Array<[string, unknown]> = [];
    const sink = { takeInput: (k: string, v: unknown) => void taken.push([k, v]) };
    inbox.drainParent(sink);
    expect(taken).toEqual([
      ['a', { v: 1 }],
      ['b', { v: 2 }],
      ['a', { v: 3 }],
      ['b', undefined],
    ]);
    inbox.drainParent(sink);
    expect(taken).toHaveLength(4);
  });

  it('should pass fetched collections’ batches to the dependency index by source, then forget them', () => {
    const inbox = new DerivedInbox();
    const calls: Array<[number, number, readonly string[]]> = [];
    const deps = {
      collectAffected: (uid: number, events: readonly Event<unknown>[], keys: readonly string[]) =>
        void calls.push([uid, events.length, keys]),
    } as unknown as DependencyIndex<TrackedInput>;
    inbox.fromFetched(7, [add(1)], ['x']);
    inbox.fromFetched(9, [add(1), add(2)], ['y', 'z']);
    inbox.drainFetched(deps, []);
    expect(calls).toEqual([
      [7, 1, ['x']],
      [9, 2, ['y', 'z']],
    ]);
    inbox.drainFetched(deps, []);
    expect(calls).toHaveLength(2);
  });

  it('should drop everything it holds when cleared', () => {
    const inbox = new DerivedInbox();
    inbox.fromParent([add(1)], ['a']);
    inbox.fromFetched(1, [add(1)], ['a']);
    inbox.clear();
    let taken = 0;
    inbox.drainParent({ takeInput: () => void taken++ });
    const deps = { collectAffected: () => void taken++ } as unknown as DependencyIndex<TrackedInput>;
    inbox.drainFetched(deps, []);
    expect(taken).toBe(0);
  });
});
