import { describe, it, expect } from '@jest/globals';
import { newStaticCollection, newCollection, batch, type Event } from '../../src/index.js';
import { named, type Named } from './sourceNode.fixtures.js';

// How a source folds the writes of one transaction into one event per key. The first key of a transaction
// is kept apart from the rest (no map for single-write transactions), and unconditional writes
// (`updateObject`) are tracked per key only once both kinds meet in one transaction: every combination of
// first/later key and forced/unforced write must fold the same way.

function source(...initial: Named[]) {
  const c = newStaticCollection<Named>(initial);
  const batches: string[][] = [];
  c.registerBatch((b: readonly Event<Named>[]) => {
    batches.push(b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}${e.new ? `=${e.new.v}` : ''}`));
  }, false);
  return { c, batches };
}

describe('SourceNode write folding', () => {
  it('should emit an equal update for an unconditional write, as the first key and as a later one', () => {
    const { c, batches } = source(named('a', 1), named('b', 1));
    c.updateObject(named('a', 1));
    batch(() => {
      c.conditionalUpdateObject(named('a', 2));
      c.updateObject(named('b', 1));
    });
    expect(batches).toEqual([['update/a=1'], ['update/a=2', 'update/b=1']]);
  });

  it('should keep a key forced once any of its writes was unconditional, whatever came before or after', () => {
    const { c, batches } = source(named('a', 1), named('b', 1), named('c', 1), named('d', 1));
    batch(() => {
      c.conditionalUpdateObject(named('z', 0)); // first key: not part of the rest
      c.updateObject(named('a', 1)); // forced, then an unconditional no-op write: still forced
      c.conditionalUpdateObject(named('a', 1));
      c.conditionalUpdateObject(named('b', 2)); // unforced, then back to the old value: no event
      c.conditionalUpdateObject(named('b', 1));
      c.conditionalUpdateObject(named('c', 2)); // unforced, then forced back to the old value: an update
      c.updateObject(named('c', 1));
      c.deleteObject('ns/d'); // unforced delete
    });
    expect(batches).toEqual([['add/z=0', 'update/a=1', 'update/c=1', 'delete/d']]);
  });

  it('should fold when the kinds mix only after several keys of one kind', () => {
    const { c, batches } = source(named('a', 1), named('b', 1), named('c', 1));
    batch(() => {
      c.updateObject(named('a', 1)); // first key, forced
      c.updateObject(named('b', 1)); // rest: forced, forced
      c.updateObject(named('c', 1));
      c.conditionalUpdateObject(named('b', 1)); // now mixed: b and c stay forced
      c.conditionalUpdateObject(named('e', 5)); // a new unforced key
    });
    batch(() => {
      c.conditionalUpdateObject(named('a', 1)); // first key, no change: no event
      c.conditionalUpdateObject(named('b', 1)); // rest: unforced, equal
      c.updateObject(named('c', 1)); // then forced
    });
    expect(batches).toEqual([['update/a=1', 'update/b=1', 'update/c=1', 'add/e=5'], ['update/c=1']]);
  });

  it('should cancel an add and a delete of the first key and still emit the rest', () => {
    const { c, batches } = source(named('a', 1));
    batch(() => {
      c.updateObject(named('x', 1));
      c.deleteObject('ns/x');
      c.updateObject(named('a', 2));
    });
    c.deleteObject('ns/missing'); // writes nothing, schedules nothing
    batch(() => {
      c.updateObject(named('y', 1));
      c.deleteObject('ns/y');
    });
    expect(batches).toEqual([['update/a=2']]);
  });

  it('should replay the committed state to a handler registered inside an open batch', () => {
    const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
    let replayed: string[] = [];
    batch(() => {
      c.updateObject(named('a', 2)); // first key
      c.deleteObject('ns/b'); // rest
      c.updateObject(named('n', 1));
      c.registerBatch((b) => {
        if (replayed.length === 0) replayed = b.map((e) => `${e.type}/${e.new!.metadata.name}=${e.new!.v}`).sort();
      });
    });
    expect(replayed).toEqual(['add/a=1', 'add/b=1']);
    expect(
      c
        .list()
        .map((o) => `${o.metadata.name}=${o.v}`)
        .sort(),
    ).toEqual(['a=2', 'n=1']);
  });

  it('should hand handlers frozen batches, from sources and derived collections alike', () => {
    const c = newStaticCollection<Named>([named('a', 1)]);
    const doubled = newCollection(c, (_ctx, o) => ({ metadata: o.metadata, v: o.v * 2 }));
    const seen: Array<readonly Event<Named>[]> = [];
    c.registerBatch((b) => void seen.push(b));
    doubled.registerBatch((b) => void seen.push(b));
    c.updateObject(named('a', 2));
    batch(() => {
      c.updateObject(named('b', 1));
      c.updateObject(named('c', 1));
    });
    expect(seen).toHaveLength(6); // two replays, then a batch from each collection per transaction
    for (const b of seen) expect(Object.isFrozen(b)).toBe(true);
  });

  it('should freeze batches for batch handlers beside per-event ones, and only while one is registered', () => {
    const c = newStaticCollection<Named>([named('a', 1)]);
    const exposes = (): boolean => (c as unknown as { handlers: { exposesBatches: boolean } }).handlers.exposesBatches;
    const events: string[] = [];
    c.register((e) => void events.push(`${e.type}/${e.new?.v}`));
    // Per-event handlers never see the array: nothing to freeze it for.
    expect(exposes()).toBe(false);
    const seen: Array<readonly Event<Named>[]> = [];
    const reg = c.registerBatch((b) => void seen.push(b), false);
    expect(exposes()).toBe(true);
    c.updateObject(named('a', 2));
    expect(seen).toHaveLength(1);
    expect(Object.isFrozen(seen[0])).toBe(true);
    reg.unregister();
    expect(exposes()).toBe(false);
    c.updateObject(named('a', 3));
    c.events$.subscribe((b) => void seen.push(b)).unsubscribe();
    expect(exposes()).toBe(false);
    const sub = c.events$.subscribe((b) => void seen.push(b));
    c.updateObject(named('a', 4));
    sub.unsubscribe();
    expect(seen.slice(1).every((b) => Object.isFrozen(b))).toBe(true);
    expect(seen.slice(1).map((b) => b.map((e) => e.new?.v))).toEqual([[3], [3], [4]]);
    expect(events).toEqual(['add/1', 'update/2', 'update/3', 'update/4']);
  });

  it('should hand over batches holding their events only, when writes in them changed nothing', () => {
    const { c } = source(named('a', 1), named('b', 1), named('c', 1));
    const seen: (readonly Event<Named>[])[] = [];
    c.registerBatch((b: readonly Event<Named>[]) => void seen.push(b), false);
    const out = newCollection(c, (_ctx, n) => ({ metadata: n.metadata, odd: n.v % 2 === 1 }));
    const derived: (readonly Event<{ metadata: Named['metadata']; odd: boolean }>[])[] = [];
    out.registerBatch((b) => void derived.push(b), false);
    batch(() => {
      c.updateObject(named('x', 1)); // added and deleted again: no event
      c.conditionalUpdateObject(named('b', 3)); // an event, and the same output
      c.conditionalUpdateObject(named('c', 2)); // an event, and a changed output
      c.deleteObject('ns/x');
    });
    // Batches are sized for every write before they are filled: what is handed over has no room left over.
    expect(seen.map((b) => [b.length, Object.keys(b).length])).toEqual([[2, 2]]);
    expect(derived.map((b) => [b.length, Object.keys(b).length])).toEqual([[1, 1]]);
    expect(derived[0]![0]!.new?.metadata.name).toBe('c');
  });

  it('should fold a later key written several times into one event, in the order of first writes', () => {
    const { c, batches } = source(named('a', 1), named('b', 1), named('c', 1));
    batch(() => {
      c.conditionalUpdateObject(named('z', 0)); // first key
      c.deleteObject('ns/b');
      c.conditionalUpdateObject(named('a', 2));
      c.conditionalUpdateObject(named('b', 3)); // deleted, then back with a new value: one update
      c.conditionalUpdateObject(named('a', 1)); // back to the old value: no event
      c.conditionalUpdateObject(named('n', 1)); // added, deleted, added again: one add
      c.deleteObject('ns/n');
      c.conditionalUpdateObject(named('n', 2));
      c.deleteObject('ns/c');
    });
    expect(batches).toEqual([['add/z=0', 'update/b=3', 'add/n=2', 'delete/c']]);
  });

  it('should replay each key once, with its value before the batch, when later keys were written twice', () => {
    const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
    let replayed: string[] = [];
    batch(() => {
      c.updateObject(named('x', 1)); // first key
      c.updateObject(named('a', 2));
      c.updateObject(named('a', 3));
      c.deleteObject('ns/b');
      c.updateObject(named('b', 4));
      c.registerBatch((b) => {
        if (replayed.length === 0) replayed = b.map((e) => `${e.type}/${e.new!.metadata.name}=${e.new!.v}`).sort();
      });
    });
    expect(replayed).toEqual(['add/a=1', 'add/b=1']);
  });

  // The flush finds a key written twice from the written values alone (no set of keys). Each batch below
  // holds one of the writes where that is least obvious, alone among other keys (one case found would
  // send the whole batch down the folding path and hide whether the next is found).
  it('should fold a key written twice with the same object, or back to the very object it held', () => {
    const a1 = named('a', 1);
    const { c, batches } = source(a1, named('b', 1), named('c', 1), named('d', 1));
    const b2 = named('b', 2);
    batch(() => {
      c.updateObject(named('z', 0)); // first key
      c.updateObject(named('c', 2));
      c.updateObject(b2); // the same object twice: one update
      c.updateObject(b2);
    });
    batch(() => {
      c.updateObject(named('z', 1));
      c.updateObject(named('a', 5)); // then the object it held before the batch: one (forced) update
      c.updateObject(a1);
    });
    batch(() => {
      c.updateObject(named('z', 2));
      c.updateObject(c.getKey('ns/d')!); // one write of the object already there: one update
      c.updateObject(named('c', 3));
    });
    batch(() => {
      c.updateObject(named('z', 3));
      c.conditionalUpdateObject(named('e', 1)); // added, then written again with an equal object: one add
      c.conditionalUpdateObject(named('e', 1));
    });
    batch(() => {
      c.updateObject(named('z', 4));
      c.conditionalUpdateObject(named('a', 7)); // conditional writes, back to the object it held: no event
      c.conditionalUpdateObject(a1);
    });
    expect(batches).toEqual([
      ['add/z=0', 'update/c=2', 'update/b=2'],
      ['update/z=1', 'update/a=1'],
      ['update/z=2', 'update/d=1', 'update/c=3'],
      ['update/z=3', 'add/e=1'],
      ['update/z=4'],
    ]);
    expect(c.getKey('ns/a')).toBe(a1);
    expect(c.getKey('ns/b')).toBe(b2);
  });
});
