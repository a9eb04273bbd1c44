import { describe, it, expect } from '@jest/globals';
import { newStaticCollection, newCollection, batch, KeyError, isStrictMode, setStrictMode, UsageError } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { sortedBatches } from '../helpers/fixtures.js';

interface Named {
  metadata: { name: string; namespace: string };
  v?: number;
}
const named = (key: string, v?: number): Named => {
  const [namespace, name] = key.split('/') as [string, string];
  return { metadata: { name, namespace }, ...(v !== undefined ? { v } : {}) };
};

describe('newStaticCollection', () => {
  it('should replay, add, update even when equal, and delete (TestStaticCollection)', () => {
    const c = newStaticCollection<Named>([named('ns/a')]);
    expect(c.hasSynced()).toBe(true);
    const t = trackEvents(c, { batches: true });
    t.expectOrdered('add/ns/a');
    c.updateObject(named('ns/b'));
    t.expectOrdered('add/ns/b');
    c.updateObject(named('ns/b'));
    t.expectOrdered('update/ns/b');
    const t2 = trackEvents(c, { batches: true });
    expect(sortedBatches(t2)).toEqual(['add/ns/a,add/ns/b']);
    c.deleteObject('ns/b');
    t.expectOrdered('delete/ns/b');
    expect(c.list()).toEqual([named('ns/a')]);
  });

  it('should emit nothing from conditionalUpdateObject when the value is equal', () => {
    const c = newStaticCollection<Named>([named('ns/a', 1)]);
    const t = trackEvents(c, { runExistingState: false });
    c.conditionalUpdateObject(named('ns/a', 1));
    t.expectEmpty();
    c.conditionalUpdateObject(named('ns/a', 2));
    t.expectOrdered('update/ns/a');
    c.conditionalUpdateObject(named('ns/c', 2));
    t.expectOrdered('add/ns/c');
  });

  it('should delete every matching object in one batch', () => {
    const c = newStaticCollection<Named>([named('ns/a', 1), named('ns/b', 2), named('ns/c', 3)]);
    const t = trackEvents(c, { runExistingState: false });
    c.deleteObjects((o) => (o.v ?? 0) >= 2);
    expect(sortedBatches(t)).toEqual(['delete/ns/b,delete/ns/c']);
    expect(c.list()).toEqual([named('ns/a', 1)]);
    c.deleteObject('ns/missing');
    t.expectEmpty();
  });

  it('should emit only the difference on reset, as one batch', () => {
    const c = newStaticCollection<Named>([named('ns/a', 1), named('ns/b', 2)]);
    const t = trackEvents(c, { runExistingState: false });
    c.reset([named('ns/b', 2), named('ns/c', 3), named('ns/a', 9)]);
    expect(sortedBatches(t)).toEqual(['add/ns/c,update/ns/a']);
    c.reset([]);
    expect(sortedBatches(t)).toEqual(['delete/ns/a,delete/ns/b,delete/ns/c']);
  });

  it('should stay unsynced until markSynced when built with synced: false', async () => {
    const c = newStaticCollection<Named>([], { synced: false });
    expect(c.hasSynced()).toBe(false);
    const waiting = c.waitUntilSynced();
    c.markSynced();
    expect(await waiting).toBe(true);
  });

  it('should show its own writes inside a batch while derived collections and handlers see them after', () => {
    const c = newStaticCollection<Named>([]);
    const d = newCollection(c, (_ctx, o) => o);
    const seen: string[] = [];
    c.register((e) => void seen.push(e.type));
    batch(() => {
      c.updateObject(named('ns/a'));
      expect(c.getKey('ns/a')).toEqual(named('ns/a'));
      expect(c.list()).toHaveLength(1);
      expect(d.list()).toHaveLength(0);
      expect(seen).toEqual([]);
      // A handler registered mid-batch gets the committed state, then the batch: no duplicates.
      const late: string[] = [];
      c.register((e) => void late.push(e.type));
      expect(late).toEqual([]);
    });
    expect(d.list()).toHaveLength(1);
    expect(seen).toEqual(['add']);
  });

  it('should fold several writes to one key in a batch into one event', () => {
    const c = newStaticCollection<Named>([named('ns/a', 1)]);
    const t = trackEvents(c, { runExistingState: false });
    batch(() => {
      c.updateObject(named('ns/b', 1));
      c.deleteObject('ns/b');
      c.deleteObject('ns/a');
      c.updateObject(named('ns/a', 1));
    });
    // b came and went; a was deleted and re-added with an equal value by an unconditional write.
    t.expectOrdered('update/ns/a');
  });

  it('should throw a KeyError at the call, before anything changes, for an object with no key', () => {
    const c = newStaticCollection<unknown>([], { name: 'Keyless' });
    expect(() => c.updateObject({ nope: true })).toThrow(KeyError);
    expect(() => c.updateObject({ nope: true })).toThrow(/Keyless/);
    expect(c.list()).toEqual([]);
  });

  it('should use the key and equals options', () => {
    const c = newStaticCollection<{ id: number; v: number }>([], {
      key: (o: { id: number }) => `id-${o.id}`,
      equals: (a: { id: number }, b: { id: number }) => a.id === b.id,
    });
    c.updateObject({ id: 1, v: 1 });
    expect(c.getKey('id-1')).toEqual({ id: 1, v: 1 });
    const t = trackEvents(c, { runExistingState: false, key: (o) => `id-${o.id}` });
    c.conditionalUpdateObject({ id: 1, v: 2 });
    t.expectEmpty();
    expect(c.getKey('id-1')?.v).toBe(1);
  });

  it('should freeze what it is given: shallowly by default, deeply in strict mode', () => {
    const wasStrict = isStrictMode();
    try {
      for (const strict of [false, true]) {
        setStrictMode(strict);
        const o = { metadata: { name: 'a', namespace: 'ns' }, spec: { list: [1, 2] } };
        const c = newStaticCollection<typeof o>([o]);
        expect(Object.isFrozen(c.getKey('ns/a'))).toBe(true);
        expect(Object.isFrozen(c.getKey('ns/a')!.spec.list)).toBe(strict);
      }
    } finally {
      setStrictMode(wasStrict);
    }
  });

  it('should default its name and give every collection a distinct uid', () => {
    const a = newStaticCollection<string>([]);
    const b = newStaticCollection<string>([], { name: 'Named' });
    expect(a.name).toMatch(/\[\d+\]$/);
    expect(b.name).toBe('Named');
    expect(a.uid).not.toBe(b.uid);
  });
});

describe('newStaticCollection after stop', () => {
  it('should refuse every write with a UsageError naming the method and the collection, and keep its state readable', () => {
    const stop = new AbortController();
    const c = newStaticCollection<string>(['a'], { name: 'Names', stop: stop.signal, synced: false });
    stop.abort();
    const writes: Array<[string, () => void]> = [
      ['updateObject', () => c.updateObject('b')],
      ['conditionalUpdateObject', () => c.conditionalUpdateObject('b')],
      ['deleteObject', () => c.deleteObject('a')],
      ['deleteObjects', () => c.deleteObjects(() => true)],
      ['reset', () => c.reset([])],
      ['markSynced', () => c.markSynced()],
    ];
    for (const [method, write] of writes) {
      expect(write).toThrow(UsageError);
      expect(write).toThrow(`${method} on "Names": the collection was stopped; its state stays readable, writes are refused`);
    }
    expect(c.list()).toEqual(['a']);
    expect(c.hasSynced()).toBe(false);
  });
});
