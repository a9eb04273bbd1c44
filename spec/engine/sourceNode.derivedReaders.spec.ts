import { describe, it, expect, jest } from '@jest/globals';
import { Subject, queueScheduler } from 'rxjs';
import {
  newStaticCollection,
  newCollection,
  mapCollection,
  collectionStats,
  collectionFromEvents,
  batch,
  fetch,
  type Event,
} from '../../src/index.js';
import { internal } from '../../src/engine/internalCollection.js';
import { countEventTypesWhile } from '../../src/engine/counters.js';
import { named, type Named } from './sourceNode.fixtures.js';

// How a source hands the writes of one transaction to the derived collections that read it.
describe('SourceNode write folding for derived readers', () => {
  // A source read by derived collections alone hands them its writes unfolded: each event sets the input's
  // value in order, so the last write of a key is what the transform sees. Anything else gets one event a key.
  describe('a batch that nothing but derived collections reads', () => {
    const writeTwice = (c: ReturnType<typeof newStaticCollection<Named>>): void =>
      batch(() => {
        c.updateObject(named('z', 0)); // first key
        c.updateObject(named('a', 2)); // a: 1 → 2 → 3
        c.updateObject(named('a', 3));
        c.updateObject(named('n', 1)); // added and deleted: never seen downstream
        c.deleteObject('ns/n');
        c.deleteObject('ns/b'); // deleted, then back: an update
        c.updateObject(named('b', 5));
      });

    it('should give a derived collection the last write of each key, and its handlers one event a key', () => {
      const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
      const doubled = newCollection(c, (_ctx, o) => ({ metadata: o.metadata, v: o.v * 2 }));
      const seen: string[][] = [];
      doubled.registerBatch(
        (b) => void seen.push(b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}${e.new ? `=${e.new.v}` : ''}`)),
        false,
      );
      writeTwice(c);
      expect(seen).toEqual([['add/z=0', 'update/a=6', 'update/b=10']]);
      expect(
        doubled
          .list()
          .map((o) => `${o.metadata.name}=${o.v}`)
          .sort(),
      ).toEqual(['a=6', 'b=10', 'z=0']);
      expect(doubled.getKey('ns/n')).toBeUndefined();
      // Unfolded, the source committed each of the seven writes as an event of its own.
      expect(collectionStats(c).events).toBe(7);
    });

    it('should build no batch for several writes that only derived collections read, counting them unfolded by type', () => {
      const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
      newCollection(c, (_ctx, o) => o);
      const emit = jest.spyOn(c as unknown as { emit(): void }, 'emit');
      const stop = countEventTypesWhile();
      try {
        writeTwice(c);
        batch(() => {
          c.updateObject(named('z', 1)); // the first key, written twice: one event
          c.updateObject(named('z', 2));
          c.conditionalUpdateObject(named('a', 3)); // equal to what it replaces: no event
        });
      } finally {
        stop();
      }
      expect(emit).not.toHaveBeenCalled();
      // z added, a updated twice, n added and deleted, b deleted and added; then z updated once.
      expect(internal(c).counters).toMatchObject({ batches: 2, events: 8, adds: 3, updates: 3, deletes: 2 });
      expect(c.getKey('ns/z')?.v).toBe(2);
    });

    it('should fold the batch as soon as a handler or another kind of dependent reads it too', () => {
      const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
      const mapped = mapCollection(c, (o) => ({ metadata: o.metadata, v: o.v + 100 }));
      newCollection(c, (_ctx, o) => o);
      const seen: string[][] = [];
      mapped.registerBatch((b) => void seen.push(b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}`)), false);
      writeTwice(c);
      expect(seen).toEqual([['add/z', 'update/a', 'update/b']]);
      expect(collectionStats(c).events).toBe(3);
      const d = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
      newCollection(d, (_ctx, o) => o);
      const own: string[][] = [];
      d.registerBatch((b) => void own.push(b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}`)), false);
      writeTwice(d);
      expect(own).toEqual([['add/z', 'update/a', 'update/b']]);
    });
  });

  // A derived collection whose parent is a source takes each write as it happens (key and value) instead of
  // the source's batch; a one-write transaction that nothing else reads then builds no event at all.
  describe('writes handed to derived collections as they happen', () => {
    const label = (e: Event<Named>): string => `${e.type}/${(e.new ?? e.old)!.metadata.name}${e.new ? `=${e.new.v}` : ''}`;

    it('should build no batch for a write that only derived collections read, and count it all the same', () => {
      const c = newStaticCollection<Named>([named('a', 1)]);
      const doubled = newCollection(c, (_ctx, o) => ({ metadata: o.metadata, v: o.v * 2 }));
      const seen: string[] = [];
      doubled.register((e) => void seen.push(label(e)));
      const emit = jest.spyOn(c as unknown as { emit(): void }, 'emit');
      c.updateObject(named('a', 2));
      c.updateObject(named('b', 1));
      c.deleteObject('ns/a');
      expect(emit).not.toHaveBeenCalled();
      expect(seen).toEqual(['add/a=2', 'update/a=4', 'add/b=2', 'delete/a']);
      expect(collectionStats(c)).toMatchObject({ batches: 3, events: 3 });
      // A handler on the source needs its batch again.
      const own: string[] = [];
      c.register((e) => void own.push(label(e)));
      c.updateObject(named('b', 7));
      expect(emit).toHaveBeenCalledTimes(1);
      expect(own).toEqual(['add/b=1', 'update/b=7']);
      expect(seen.at(-1)).toBe('update/b=14');
    });

    it('should count the events it builds no batch for by type while metrics ask for it', () => {
      const c = newStaticCollection<Named>([named('a', 1)]);
      newCollection(c, (_ctx, o) => o);
      const counters = internal(c).counters;
      c.updateObject(named('a', 2)); // not counted by type: nobody asked yet
      const stop = countEventTypesWhile();
      try {
        c.updateObject(named('b', 1));
        c.updateObject(named('b', 2));
        c.deleteObject('ns/a');
        c.conditionalUpdateObject(named('b', 2)); // no change: no event
      } finally {
        stop();
      }
      expect(counters).toMatchObject({ batches: 4, events: 4, adds: 1, updates: 1, deletes: 1 });
    });

    it('should not recompute for a write that would make no event (unforced, equal to what it replaces)', () => {
      const events$ = new Subject<Event<Named>>();
      const c = collectionFromEvents<Named>(events$, { scheduler: queueScheduler });
      let runs = 0;
      const copy = newCollection(c, (_ctx, o) => {
        runs++;
        return { metadata: o.metadata, v: o.v };
      });
      events$.next({ type: 'add', new: named('a', 1) });
      expect(runs).toBe(1);
      events$.next({ type: 'update', old: named('a', 1), new: named('a', 1) });
      expect(runs).toBe(1);
      expect(collectionStats(c).events).toBe(1);
      events$.next({ type: 'update', old: named('a', 1), new: named('a', 2) });
      expect(runs).toBe(2);
      expect(copy.getKey('ns/a')?.v).toBe(2);
    });

    it('should recompute a key written away and back in one transaction once, and emit nothing for it', () => {
      const c = newStaticCollection<Named>([named('a', 1), named('b', 1)]);
      let runs = 0;
      const copy = newCollection(c, (_ctx, o) => {
        runs++;
        return { metadata: o.metadata, v: o.v };
      });
      const seen: string[] = [];
      copy.register((e) => void seen.push(label(e)));
      const before = copy.getKey('ns/a');
      runs = 0;
      batch(() => {
        c.conditionalUpdateObject(named('a', 2));
        c.conditionalUpdateObject(named('a', 1));
      });
      expect(runs).toBe(1);
      expect(seen).toEqual(['add/a=1', 'add/b=1']);
      expect(copy.getKey('ns/a')).toBe(before);
    });

    it('should still hand its batch to a derived collection whose transform fetches the parent', () => {
      const c = newStaticCollection<Named>([named('a', 1), named('b', 2)]);
      // Each output sums every object of the parent: a write to one key must recompute every input.
      const sums = newCollection(c, (ctx, o) => ({ metadata: o.metadata, v: fetch(ctx, c).reduce((n, x) => n + x.v, 0) }));
      const emit = jest.spyOn(c as unknown as { emit(): void }, 'emit');
      c.updateObject(named('a', 10));
      expect(emit).toHaveBeenCalledTimes(1);
      expect(sums.getKey('ns/a')?.v).toBe(12);
      expect(sums.getKey('ns/b')?.v).toBe(12);
    });

    it('should compare each write once, and emit nothing for a key written away and back, with handlers and derived readers', () => {
      let compared = 0;
      const c = newStaticCollection<Named>([named('a', 1), named('b', 1)], {
        equals: (x, y) => {
          compared++;
          return x.v === y.v;
        },
      });
      const copy = newCollection(c, (_ctx, o) => ({ metadata: o.metadata, v: o.v }));
      const own: string[] = [];
      c.register((e) => void own.push(label(e)));
      const derived: string[] = [];
      copy.register((e) => void derived.push(label(e)));
      c.conditionalUpdateObject(named('a', 2)); // compared once, by conditionalUpdateObject
      expect(compared).toBe(1);
      batch(() => {
        c.conditionalUpdateObject(named('a', 3)); // the first key, away and back
        c.conditionalUpdateObject(named('a', 2));
        c.conditionalUpdateObject(named('b', 2)); // a later key, away and back
        c.conditionalUpdateObject(named('b', 1));
      });
      expect(own).toEqual(['add/a=1', 'add/b=1', 'update/a=2']);
      expect(derived).toEqual(['add/a=1', 'add/b=1', 'update/a=2']);
      // Fed unconditionally (as an informer is), a write read by a derived collection alone is compared once.
      const events$ = new Subject<Event<Named>>();
      let fedCompared = 0;
      const fed = collectionFromEvents<Named>(events$, {
        scheduler: queueScheduler,
        equals: (x, y) => {
          fedCompared++;
          return x.v === y.v;
        },
      });
      const fedCopy = newCollection(fed, (_ctx, o) => ({ metadata: o.metadata, v: o.v }));
      events$.next({ type: 'add', new: named('a', 1) });
      events$.next({ type: 'update', old: named('a', 1), new: named('a', 2) });
      expect(fedCompared).toBe(1);
      events$.next({ type: 'update', old: named('a', 2), new: named('a', 2) });
      expect(fedCompared).toBe(2);
      expect(fedCopy.getKey('ns/a')?.v).toBe(2);
      expect(collectionStats(fed).events).toBe(2);
    });

    it('should settle a one-key transaction that no batch carries after propagation, outside the rank order', () => {
      const c = newStaticCollection<Named>([named('a', 1)]);
      const copy = newCollection(c, (_ctx, o) => ({ metadata: o.metadata, v: o.v }));
      const node = internal(c) as unknown as { queued: boolean };
      batch(() => {
        c.updateObject(named('a', 2));
        c.updateObject(named('a', 3)); // the same key again: still one event
        expect(node.queued).toBe(false);
      });
      expect(copy.getKey('ns/a')?.v).toBe(3);
      expect(collectionStats(c)).toMatchObject({ batches: 1, events: 1 });
      batch(() => {
        c.updateObject(named('a', 4));
        c.updateObject(named('b', 1)); // a second key: still counted after propagation, with no place in the rank order
        expect(node.queued).toBe(false);
      });
      expect(collectionStats(c)).toMatchObject({ batches: 2, events: 3 });
      batch(() => {
        c.updateObject(named('n', 1)); // added and deleted: no event to count
        c.deleteObject('ns/n');
      });
      expect(collectionStats(c)).toMatchObject({ batches: 2, events: 3 });
      expect(copy.getKey('ns/n')).toBeUndefined();
      expect(node.queued).toBe(false);
    });

    it('should hand the batch to a handler or a reader that arrives in the transaction after the write', () => {
      const c = newStaticCollection<Named>([named('a', 1)]);
      newCollection(c, (_ctx, o) => o);
      const own: string[] = [];
      const batches: string[][] = [];
      let mapped: ReturnType<typeof mapCollection<Named, Named>> | undefined;
      batch(() => {
        c.updateObject(named('a', 2));
        c.register((e) => void own.push(label(e)));
        c.registerBatch((b) => void batches.push(b.map(label)), false);
        mapped = mapCollection(c, (o) => ({ metadata: o.metadata, v: o.v + 100 }));
      });
      expect(own).toEqual(['add/a=1', 'update/a=2']);
      expect(batches).toEqual([['update/a=2']]);
      expect(mapped!.getKey('ns/a')?.v).toBe(102);
      expect(collectionStats(c)).toMatchObject({ batches: 1, events: 1 });
      c.updateObject(named('a', 3));
      expect(own.at(-1)).toBe('update/a=3');
      expect(mapped!.getKey('ns/a')?.v).toBe(103);
    });

    it('should stop handing writes to a derived collection once it is stopped', () => {
      const c = newStaticCollection<Named>([named('a', 1)]);
      const stop = new AbortController();
      let runs = 0;
      const copy = newCollection(
        c,
        (_ctx, o) => {
          runs++;
          return { metadata: o.metadata, v: o.v };
        },
        { stop: stop.signal },
      );
      stop.abort();
      expect(internal(c).subscriberCount()).toBe(0);
      c.updateObject(named('a', 2));
      expect(runs).toBe(1);
      expect(copy.getKey('ns/a')?.v).toBe(1);
      expect(collectionStats(c).events).toBe(1);
    });
  });
});
