import { describe, it, expect } from '@jest/globals';
import { of } from 'rxjs';
import { collectionFromEvents, newStaticCollection, type Event } from '../../src/index.js';
import {
  add,
  createMarbleScheduler,
  del,
  describeEvent,
  describeEvents,
  eventsToStrings,
  MarbleMismatchError,
  update,
} from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ip?: string;
}
const pod = (name: string, ip?: string): Pod => ({ metadata: { name, namespace: 'ns' }, ...(ip ? { ip } : {}) });

/** Runs `body` under a fresh marble scheduler and returns what it threw (undefined when it passed). */
function failureOf(body: Parameters<ReturnType<typeof createMarbleScheduler>['run']>[0]): MarbleMismatchError | undefined {
  try {
    createMarbleScheduler().run(body);
    return undefined;
  } catch (e) {
    if (e instanceof MarbleMismatchError) return e;
    throw e;
  }
}

describe('add', () => {
  it('should build an add event carrying the new object', () => {
    const p = pod('a');
    expect(add(p)).toEqual({ type: 'add', new: p });
  });
});

describe('update', () => {
  it('should build an update event carrying old and new', () => {
    const [a, b] = [pod('a', '1'), pod('a', '2')];
    expect(update(a, b)).toEqual({ type: 'update', old: a, new: b });
  });
});

describe('del', () => {
  it('should build a delete event carrying the removed object', () => {
    const p = pod('a');
    const e = del(p);
    expect(e).toEqual({ type: 'delete', old: p });
    expect('new' in e).toBe(false);
  });
});

describe('describeEvent', () => {
  it('should render type and key as krt trackers do', () => {
    expect(describeEvent(add(pod('a')))).toBe('add/ns/a');
    expect(describeEvent(update(pod('a', '1'), pod('a', '2')))).toBe('update/ns/a');
    expect(describeEvent(del(pod('a')))).toBe('delete/ns/a');
    expect(describeEvent(add('plain-string'))).toBe('add/plain-string');
  });

  it('should key values keyOf cannot key as singletons do, and honour a key option', () => {
    expect(describeEvent(add(3))).toBe('add/static');
    expect(describeEvent(del({ id: 'x' }), { key: (o) => o.id })).toBe('delete/x');
  });
});

describe('describeEvents', () => {
  it('should join a batch in its own order, or sorted on request', () => {
    const batch: Event<Pod>[] = [update(pod('b'), pod('b', '1')), add(pod('a'))];
    expect(describeEvents(batch)).toBe('update/ns/b,add/ns/a');
    expect(describeEvents(batch, { sort: true })).toBe('add/ns/a,update/ns/b');
    expect(describeEvents([])).toBe('');
  });
});

describe('eventsToStrings', () => {
  it('should map every batch of a collection to one string', () => {
    const pods = newStaticCollection<Pod>([pod('a'), pod('b')]);
    const seen: string[] = [];
    const sub = eventsToStrings(pods.events$, { sort: true }).subscribe((s) => seen.push(s));
    pods.updateObject(pod('c'));
    pods.deleteObject('ns/a');
    sub.unsubscribe();
    pods.deleteObject('ns/b');
    expect(seen).toEqual(['add/ns/a,add/ns/b', 'add/ns/c', 'delete/ns/a']);
  });
});

describe('createMarbleScheduler', () => {
  it('should pass when actual and expected agree, flushing asapScheduler in virtual time', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('-a--b', { a: add(pod('a')), b: del(pod('a')) }));
      expectObservable(eventsToStrings(pods.events$)).toBe('-a--b', { a: 'add/ns/a', b: 'delete/ns/a' });
    });
  });

  it('should throw a MarbleMismatchError that lists expected and actual frame by frame', () => {
    const err = failureOf(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b|', { a: 'add/ns/a', b: 'update/ns/a' })).toBe('-a--b|', { a: 'add/ns/a', b: 'update/ns/a' });
    });
    expect(err).toBeInstanceOf(MarbleMismatchError);
    expect(err!.message).toBe(
      [
        'marble expectation failed at entry #2',
        'expected:',
        '    @1 next "add/ns/a"',
        '  > @4 next "update/ns/a"',
        '    @5 complete',
        'actual:',
        '    @1 next "add/ns/a"',
        '  > @3 next "update/ns/a"',
        '    @4 complete',
      ].join('\n'),
    );
    expect(Array.isArray(err!.actual) && Array.isArray(err!.expected)).toBe(true);
  });

  it('should render errors and subscription logs readably', () => {
    const errErr = failureOf(({ cold, expectObservable }) => {
      expectObservable(cold('-#', undefined, new TypeError('boom'))).toBe('-#', undefined, new TypeError('bang'));
    });
    expect(errErr!.message).toContain('> @1 error TypeError: bang');
    expect(errErr!.message).toContain('> @1 error TypeError: boom');
    const subErr = failureOf(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b');
      expectObservable(src, '^-!').toBe('-a');
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
    expect(subErr!.message).toContain('subscribed @0, unsubscribed @3');
    expect(subErr!.message).toContain('subscribed @0, unsubscribed @2');
  });

  it('should say so when nothing was emitted', () => {
    const err = failureOf(({ cold, expectObservable }) => {
      expectObservable(cold('---')).toBe('-a');
    });
    expect(err!.message).toContain('actual:\n    (nothing)');
  });

  it('should compare like toEqual: prototypes and undefined properties ignored, collections by content', () => {
    class Box {
      constructor(readonly v: number) {}
    }
    const ok = failureOf(({ cold, expectObservable }) => {
      expectObservable(
        cold('abcde', {
          a: new Box(1),
          b: { type: 'delete', old: 1, new: undefined },
          c: new Map([['k', [1, 2]]]),
          d: new Set([{ x: 1 }, { y: 2 }]),
          e: new Date(5),
        }),
      ).toBe('abcde', {
        a: { v: 1 },
        b: { type: 'delete', old: 1 },
        c: new Map([['k', [1, 2]]]),
        d: new Set([{ y: 2 }, { x: 1 }]),
        e: new Date(5),
      });
    });
    expect(ok).toBeUndefined();
    for (const [actual, expected] of [
      [{ a: 1 }, { a: 2 }],
      [
        [1, 2],
        [1, 2, 3],
      ],
      [new Map([['k', 1]]), new Map([['k', 2]])],
      [new Set([1]), new Set([2])],
      [new Date(1), new Date(2)],
      [{ a: 1 }, [1]],
      [
        { equals: () => true, v: 1 },
        { equals: () => true, v: 2 },
      ],
    ] as const) {
      expect(failureOf(({ expectObservable }) => expectObservable(of(actual)).toBe('(a|)', { a: expected }))).toBeInstanceOf(
        MarbleMismatchError,
      );
    }
  });

  it('should tell Sets, Maps and errors apart by content and spell them out in the diff', () => {
    const mismatch = (actual: unknown, expected: unknown): string | undefined =>
      failureOf(({ expectObservable }) => expectObservable(of(actual)).toBe('(a|)', { a: expected }))?.message;
    // Sets: same size, a member without a partner; a Set against something else.
    expect(mismatch(new Set([{ x: 1 }, { x: 2 }]), new Set([{ x: 1 }, { x: 3 }]))).toContain('{"Set":[{"x":1},{"x":3}]}');
    expect(mismatch(new Set([1]), [1])).toContain('@0 next {"Set":[1]}');
    expect(mismatch(new Map([['k', 1n]]), new Map([['k', 2n]]))).toContain('{"Map":{"k":"1n"}}');
    // Errors: equal by name and message, whatever else they carry.
    expect(mismatch(new RangeError('r'), Object.assign(new RangeError('r'), { extra: 1 }))).toBeUndefined();
    expect(mismatch(new RangeError('r'), new TypeError('r'))).toContain('@0 next TypeError: r');
    expect(mismatch({ e: new Error('inner') }, { e: new Error('other') })).toContain('{"e":"Error: inner"}');
    // A value JSON cannot render (a cycle) is still described, not thrown on.
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(mismatch(cyclic, { self: 1 })).toMatch(/@0 next \S/);
    // A subscription never unsubscribed reads "never".
    const neverErr = failureOf(({ cold, expectSubscriptions }) => {
      const src = cold('-a');
      src.subscribe();
      expectSubscriptions(src.subscriptions).toBe('^-!');
    });
    expect(neverErr!.message).toContain('subscribed @0, unsubscribed @never');
  });

  it('should honour asymmetric matchers on the expected side', () => {
    expect(
      failureOf(({ cold, expectObservable }) => {
        expectObservable(cold('a', { a: { message: 'collection "Pods": source Observable errored', at: 3 } })).toBe('a', {
          a: { message: expect.stringContaining('source Observable errored'), at: expect.any(Number) },
        });
      }),
    ).toBeUndefined();
    expect(
      failureOf(({ cold, expectObservable }) => {
        expectObservable(cold('a', { a: 'nope' })).toBe('a', { a: expect.stringContaining('errored') });
      })!.message,
    ).toContain('StringContaining "errored"');
  });
});
