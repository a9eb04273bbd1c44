// White-box: strict mode's check of a batch before it is committed.
import { describe, it, expect } from '@jest/globals';
import { batchInconsistency } from '../../src/engine/batchInvariants.js';
import { equals, keyOf, type Event } from '../../src/index.js';

const a1 = { metadata: { name: 'a' }, v: 1 };
const a2 = { metadata: { name: 'a' }, v: 2 };
const b1 = { metadata: { name: 'b' }, v: 1 };
const check = (events: Event<unknown>[], keys: string[], repeats = false, equalUpdates = false): string | undefined =>
  batchInconsistency('C', keyOf, equals, events, keys, repeats, equalUpdates);

/** An event the types forbid (what a broken collection might still emit at run time). */
const malformed = (e: object): Event<unknown> => e as Event<unknown>;

describe('batchInconsistency', () => {
  it('should pass a well-formed batch', () => {
    expect(
      check(
        [
          { type: 'add', new: a1 },
          { type: 'delete', old: b1 },
        ],
        ['a', 'b'],
      ),
    ).toBeUndefined();
    expect(check([{ type: 'update', old: a1, new: a2 }], ['a'])).toBeUndefined();
  });

  it('should name the collection and what is wrong, for each kind of fault', () => {
    expect(check([{ type: 'add', new: a1 }], [])).toBe('collection "C" emitted 1 events with 0 keys');
    expect(
      check(
        [
          { type: 'add', new: a1 },
          { type: 'update', old: a1, new: a2 },
        ],
        ['a', 'a'],
      ),
    ).toBe('collection "C" emitted two events for key "a" in one batch');
    expect(check([{ type: 'add', new: a1 }], ['b'])).toBe('collection "C" emitted an event for "a" under key "b"');
    expect(check([malformed({ type: 'add' })], ['a'])).toBe('collection "C" emitted a malformed add event');
    expect(check([malformed({ type: 'delete' })], ['a'])).toBe('collection "C" emitted a malformed delete event');
    expect(check([malformed({ type: 'update', new: a1 })], ['a'])).toBe('collection "C" emitted a malformed update event');
    expect(check([{ type: 'update', old: a1, new: { ...a1 } }], ['a'])).toBe(
      'collection "C" emitted an update between equal values for key "a"',
    );
  });

  it('should allow a repeated key and an update between equal values only when the emitter may make them', () => {
    expect(
      check(
        [
          { type: 'add', new: a1 },
          { type: 'update', old: a1, new: a2 },
        ],
        ['a', 'a'],
        true,
      ),
    ).toBeUndefined();
    expect(check([{ type: 'update', old: a1, new: { ...a1 } }], ['a'], false, true)).toBeUndefined();
  });
});
