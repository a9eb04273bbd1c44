import { describe, it, expect } from '@jest/globals';
import { newStatic, batch, isStrictMode, UsageError } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';

describe('newStatic', () => {
  it('should emit add, delete, and delete plus add on a key change (TestNewStatic)', () => {
    const s = newStatic<string>(undefined);
    const t = trackEvents(s.asCollection());
    t.expectEmpty();
    s.set('foo');
    t.expectOrdered('add/foo');
    expect(s.get()).toBe('foo');
    s.set(undefined);
    t.expectOrdered('delete/foo');
    expect(s.get()).toBeUndefined();
    s.set('bar');
    t.expectOrdered('add/bar');
    s.set('bar2');
    t.expectUnordered('delete/bar', 'add/bar2');
    expect(s.get()).toBe('bar2');
  });

  it('should emit nothing for a value equal to the current one', () => {
    const s = newStatic<{ n: number }>({ n: 1 });
    const seen: string[] = [];
    s.register((e) => void seen.push(e.type));
    s.set({ n: 1 });
    expect(seen).toEqual(['add']);
    s.set({ n: 2 });
    expect(seen).toEqual(['add', 'update']);
    expect(s.asCollection().list()).toEqual([{ n: 2 }]);
  });

  it('should pass its metadata to asCollection (TestStaticMetadata)', () => {
    const s = newStatic<string>('x', { metadata: { foo: 'bar' } });
    expect(s.asCollection().metadata()).toEqual({ foo: 'bar' });
    expect(s.metadata()).toEqual({ foo: 'bar' });
  });

  it('should start synced unless told otherwise', async () => {
    expect(newStatic<string>(undefined).hasSynced()).toBe(true);
    const s = newStatic<string>(undefined, { startSynced: false });
    expect(s.hasSynced()).toBe(false);
    s.markSynced();
    expect(s.hasSynced()).toBe(true);
    expect(await s.waitUntilSynced()).toBe(true);
  });

  it('should fold several sets in one batch into one event', () => {
    const s = newStatic<number>(1);
    const batches: string[][] = [];
    s.asCollection().registerBatch((b) => void batches.push(b.map((e) => `${e.type}:${e.old}>${e.new}`)), false);
    batch(() => {
      s.set(2);
      s.set(3);
    });
    expect(batches).toEqual([['update:1>3']]);
  });

  it('should publish the current value then each change on value$', () => {
    const s = newStatic<string>('a');
    const got: Array<string | undefined> = [];
    s.value$.subscribe((v) => got.push(v));
    s.set('b');
    s.set(undefined);
    expect(got).toEqual(['a', 'b', undefined]);
  });

  it('should freeze the value it holds', () => {
    const s = newStatic<{ n: number[] }>({ n: [1] });
    expect(Object.isFrozen(s.get())).toBe(true);
    // Nested parts are frozen in strict mode only (the default freezes shallowly; see bench B5).
    expect(Object.isFrozen(s.get()!.n)).toBe(isStrictMode());
  });
});

describe('newStatic after stop', () => {
  it('should refuse set and markSynced with a UsageError naming the singleton, and keep its value readable', () => {
    const stop = new AbortController();
    const s = newStatic<number>(1, { name: 'Mode', stop: stop.signal, startSynced: false });
    stop.abort();
    expect(() => s.set(2)).toThrow(UsageError);
    expect(() => s.set(2)).toThrow('set on "Mode": the collection was stopped');
    expect(() => s.markSynced()).toThrow('markSynced on "Mode": the collection was stopped');
    expect(s.get()).toBe(1);
  });
});
