import { describe, it, expect } from '@jest/globals';
import { from, map } from 'rxjs';
import { batch, collectionFromEvents, newCollection, newStaticCollection, UsageError, type Event } from '../../src/index.js';
import { add, createMarbleScheduler, del, update } from '../../src/testing/index.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;
const item = (name: string, n: number): Item => ({ name, n });

describe('collection.get$(key)', () => {
  it('should emit the current value, then each change of that key only, undefined while absent', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c-d-e', {
        a: add(item('x', 1)),
        b: add(item('y', 1)),
        c: update(item('x', 1), item('x', 2)),
        d: del(item('x', 2)),
        e: add(item('x', 3)),
      });
      const items = collectionFromEvents<Item>(source, { key: byName });
      expectObservable(items.get$('x').pipe(map((v) => v?.n ?? 'none'))).toBe('na---b-c-d', { n: 'none', a: 1, b: 2, c: 'none', d: 3 });
    });
  });

  it('should not emit an update that its equals finds equal, nor for a key another transaction touched', () => {
    const items = newStaticCollection<Item>([item('x', 1)], { key: byName, equals: (a: Item, b: Item) => a.n === b.n });
    const seen: Array<number | undefined> = [];
    const sub = items.get$('x').subscribe((v) => seen.push(v?.n));
    items.updateObject(item('y', 5));
    items.updateObject({ ...item('x', 1) });
    items.updateObject(item('x', 2));
    sub.unsubscribe();
    items.updateObject(item('x', 3));
    expect(seen).toEqual([1, 2]);
  });

  it('should show a transaction whole: a derived key after its input, never halfway', () => {
    const items = newStaticCollection<Item>([item('x', 1)], { key: byName });
    const doubled = newCollection(items, (_ctx, i) => ({ name: i.name, n: i.n * 2 }), { key: byName });
    const seen: string[] = [];
    items.get$('x').subscribe((v) => seen.push(`in ${v?.n} / out ${doubled.getKey('x')?.n}`));
    doubled.get$('x').subscribe((v) => seen.push(`out ${v?.n} / in ${items.getKey('x')?.n}`));
    batch(() => {
      items.updateObject(item('x', 2));
      items.updateObject(item('x', 3));
    });
    expect(seen).toEqual(['in 1 / out 2', 'out 2 / in 1', 'in 3 / out 6', 'out 6 / in 3']);
  });

  it('should share one handler among all watchers and drop it with the last', () => {
    const items = newStaticCollection<Item>([], { key: byName });
    const subs = ['a', 'b', 'c', 'a'].map((k) => items.get$(k).subscribe());
    // One registration for all four, whatever the keys.
    expect((items as unknown as { subscriberCount(): number }).subscriberCount()).toBe(1);
    for (const s of subs) s.unsubscribe();
    expect((items as unknown as { subscriberCount(): number }).subscriberCount()).toBe(0);
  });

  it('should refuse a key that is not a string', () => {
    const items = newStaticCollection<Item>([], { key: byName });
    expect(() => items.get$(3 as unknown as string)).toThrow(UsageError);
  });
});

describe('a collection as an InteropObservable', () => {
  it('should be its events$ under from(): the state as one batch of adds, then each batch', () => {
    const items = newStaticCollection<Item>([item('a', 1)], { key: byName });
    const seen: string[] = [];
    const sub = from(items).subscribe((b: readonly Event<Item>[]) =>
      seen.push(b.map((e) => `${e.type} ${(e.new ?? e.old)!.name}`).join(',')),
    );
    items.updateObject(item('b', 1));
    items.deleteObject('a');
    sub.unsubscribe();
    expect(seen).toEqual(['add a', 'add b', 'delete a']);
  });
});
