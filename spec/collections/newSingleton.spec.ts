import { describe, it, expect } from '@jest/globals';
import { newSingleton, newStaticCollection, newStatic, fetch, keyOf } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { configMap, subscribers, type ConfigMap } from '../helpers/fixtures.js';

describe('newSingleton', () => {
  it('should key a string value by itself: a change is a delete plus an add (TestSingleton)', () => {
    const cms = newStaticCollection<ConfigMap>([]);
    const names = newSingleton(
      (ctx) =>
        fetch(ctx, cms)
          .map((c) => keyOf(c))
          .sort()
          .join(','),
      { metadata: { foo: 'bar' } },
    );
    const t = trackEvents(names.asCollection());
    t.expectOrdered('add/');
    cms.updateObject(configMap('a', undefined, 'ns'));
    t.expectUnordered('delete/', 'add/ns/a');
    expect(names.get()).toBe('ns/a');
    expect(names.metadata()).toEqual({ foo: 'bar' });
    expect(names.asCollection().metadata()).toEqual({ foo: 'bar' });
  });

  it('should keep a record value under one key: a change is an update', () => {
    const src = newStaticCollection<string>([]);
    const count = newSingleton((ctx) => ({ n: fetch(ctx, src).length }));
    const seen: string[] = [];
    count.register((e) => void seen.push(`${e.type}:${e.old?.n}>${e.new?.n}`));
    src.updateObject('a');
    src.updateObject('b');
    src.updateObject('b');
    expect(seen).toEqual(['add:undefined>0', 'update:0>1', 'update:1>2']);
    expect(count.asCollection().list()).toEqual([{ n: 2 }]);
  });

  it('should emit a delete when the transform stops returning a value', () => {
    const flag = newStatic<boolean>(true);
    const s = newSingleton((ctx) => (fetch(ctx, flag.asCollection())[0] ? { on: true } : undefined));
    const seen: string[] = [];
    s.register((e) => void seen.push(e.type));
    flag.set(false);
    expect(s.get()).toBeUndefined();
    flag.set(true);
    expect(seen).toEqual(['add', 'delete', 'add']);
  });

  it('should publish distinct values on value$, starting with the current one', () => {
    const src = newStaticCollection<string>([]);
    const n = newSingleton((ctx) => fetch(ctx, src).length);
    const got: Array<number | undefined> = [];
    const sub = n.value$.subscribe((v) => got.push(v));
    src.updateObject('a');
    src.updateObject('a'); // recomputes to an equal value: nothing
    src.updateObject('b');
    sub.unsubscribe();
    src.updateObject('c');
    expect(got).toEqual([0, 1, 2]);
  });

  it('should sync only when what it fetched has synced', async () => {
    const src = newStaticCollection<string>([], { synced: false });
    const n = newSingleton((ctx) => fetch(ctx, src).length);
    expect(n.hasSynced()).toBe(false);
    src.markSynced();
    expect(await n.waitUntilSynced()).toBe(true);
  });

  it('should unsubscribe from what it fetched when stopped', () => {
    const src = newStaticCollection<string>([]);
    const before = subscribers(src);
    const ac = new AbortController();
    const n = newSingleton((ctx) => fetch(ctx, src).length, { stop: ac.signal });
    expect(subscribers(src)).toBe(before + 1);
    ac.abort();
    expect(subscribers(src)).toBe(before);
    src.updateObject('a');
    expect(n.get()).toBe(0);
  });

  it('should use its name option', () => {
    expect(newSingleton(() => 1, { name: 'One' }).asCollection().name).toBe('One');
  });
});
