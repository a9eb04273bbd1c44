import { describe, it, expect } from '@jest/globals';
import { of, Subject, switchMap } from 'rxjs';
import { deriveCollection, deriveMany, newStaticCollection, UsageError, type Collection } from '../../src/index.js';
import { add, createMarbleScheduler, eventsToStrings, update } from '../../src/testing/index.js';
import { liveCollections } from '../../src/engine/liveCollections.js';
import { toCollection } from '../../src/index.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;
const item = (name: string, n: number): Item => ({ name, n });

describe('deriveCollection', () => {
  it('should derive from the collection the source emits, in the same frame as its input changes', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a-b', { a: add(item('x', 1)), b: update(item('x', 1), item('x', 2)) });
      const doubled = source.pipe(
        toCollection<Item>({ key: byName }),
        deriveCollection((_ctx, i: Item) => ({ name: i.name, n: i.n * 2 }), { key: byName }),
        switchMap((c) => eventsToStrings(c.events$, { key: (i: Item) => `${i.name}=${i.n}` })),
      );
      expectObservable(doubled).toBe('-a-b', { a: 'add/x=2', b: 'update/x=4' });
    });
  });

  it('should stop the collection it derived when the source switches to another, and the last when unsubscribed', () => {
    const inputs = new Subject<Collection<Item>>();
    const built: Array<Collection<Item>> = [];
    const sub = inputs.pipe(deriveCollection((_ctx, i: Item) => i, { name: 'Switched', key: byName })).subscribe((c) => built.push(c));
    inputs.next(newStaticCollection([item('a', 1)], { key: byName }));
    inputs.next(newStaticCollection([item('b', 1)], { key: byName }));
    expect(built.map((c) => c.list())).toEqual([[item('a', 1)], [item('b', 1)]]);
    expect(liveCollections()).not.toContain(built[0]);
    expect(liveCollections()).toContain(built[1]);
    inputs.complete();
    expect(liveCollections()).toContain(built[1]);
    sub.unsubscribe();
    expect(liveCollections()).not.toContain(built[1]);
  });

  it('should pass a source error on and stop what it derived', () => {
    const inputs = new Subject<Collection<Item>>();
    let failed: unknown;
    const built: Array<Collection<Item>> = [];
    inputs
      .pipe(deriveCollection((_ctx, i: Item) => i, { key: byName }))
      .subscribe({ next: (c) => built.push(c), error: (e) => (failed = e) });
    inputs.next(newStaticCollection([item('a', 1)], { key: byName }));
    inputs.error(new Error('gone'));
    expect(String(failed)).toContain('gone');
    expect(liveCollections()).not.toContain(built[0]);
  });

  it('should refuse a transform that is not a function at the call', () => {
    expect(() => deriveCollection(null as never)).toThrow(UsageError);
  });
});

describe('deriveMany', () => {
  it('should derive many outputs per input', () => {
    let out: Collection<string> | undefined;
    const sub = of(newStaticCollection([item('a', 2)], { key: byName }))
      .pipe(deriveMany((_ctx, i: Item) => Array.from({ length: i.n }, (_, k) => `${i.name}${k}`)))
      .subscribe((c) => (out = c));
    expect(out!.list().sort()).toEqual(['a0', 'a1']);
    sub.unsubscribe();
  });
});
