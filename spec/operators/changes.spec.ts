import { describe, it, expect } from '@jest/globals';
import { debounceTime, groupBy, map, mergeMap, of, Subject } from 'rxjs';
import { batches, changes, newStaticCollection, toCollection, type Collection } from '../../src/index.js';
import { add, createMarbleScheduler, update } from '../../src/testing/index.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;
const item = (name: string, n: number): Item => ({ name, n });

describe('batches', () => {
  it('should be the events$ of the latest collection, switching when another arrives', () => {
    const cs = new Subject<Collection<Item>>();
    const seen: number[] = [];
    cs.pipe(batches()).subscribe((b) => seen.push(b.length));
    const a = newStaticCollection([item('a', 1), item('b', 1)], { key: byName });
    cs.next(a);
    a.updateObject(item('c', 1));
    cs.next(newStaticCollection([item('z', 1)], { key: byName }));
    a.updateObject(item('d', 1));
    expect(seen).toEqual([2, 1, 1]);
  });
});

describe('changes', () => {
  it('should emit each event with its key, so per-key pipelines can debounce each key', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('a-b-c 7ms d', {
        a: add(item('x', 1)),
        b: update(item('x', 1), item('x', 2)),
        c: add(item('y', 1)),
        d: update(item('x', 2), item('x', 3)),
      });
      const settled = source.pipe(
        toCollection<Item>({ key: byName }),
        changes(),
        groupBy((c) => c.key),
        mergeMap((perKey) => perKey.pipe(debounceTime(5))),
        map((c) => `${c.key}:${c.event.type}:${c.event.new?.n}`),
      );
      expectObservable(settled).toBe('------- x 1ms y 7ms z', { x: 'x:update:2', y: 'y:add:1', z: 'x:update:3' });
    });
  });

  it('should give the key the collection keys by', () => {
    const seen: string[] = [];
    of(newStaticCollection([item('a', 1)], { key: (i: Item) => `k-${i.name}` }))
      .pipe(changes())
      .subscribe((c) => seen.push(c.key));
    expect(seen).toEqual(['k-a']);
  });
});
