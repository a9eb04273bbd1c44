import { describe, it, expect } from '@jest/globals';
import { joinCollection, mapCollection, newCollection, newIndex, newSingleton, newStaticCollection } from '../../src/index.js';
import { liveCollections } from '../../src/engine/liveCollections.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** A full gc, whichever way jest was started (the flag only takes effect in contexts made after it is set). */
const fullGc = runInNewContext('gc') as () => void;

/** Lets FinalizationRegistry callbacks and cleared WeakRefs take effect: a full gc, then a macrotask. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  fullGc();
  await new Promise((resolve) => setImmediate(resolve));
}

// The set metrics, readiness and the graph page read: every collection until it is stopped or collected.
const names = (): string[] => liveCollections().map((c) => c.name);

describe('liveCollections', () => {
  it('should hold every kind of collection from construction until stop, in creation order', () => {
    const stop = new AbortController();
    const opts = (name: string) => ({ name, stop: stop.signal });
    const byId = (o: { id: string }): string => o.id;
    const a = newStaticCollection<{ id: string }>([{ id: 'x' }], { ...opts('live-a'), key: byId });
    const b = newCollection(a, (_ctx, o) => o, { ...opts('live-b'), key: byId });
    mapCollection(b, (o) => o, { ...opts('live-c'), key: byId });
    joinCollection([a, b], { ...opts('live-d'), key: byId });
    newIndex(a, 'id', (o) => [o.id]).asCollection(opts('live-e'));
    newSingleton(() => 1, opts('live-f'));
    const ours = names().filter((n) => n.startsWith('live-'));
    expect(ours).toEqual(['live-a', 'live-b', 'live-c', 'live-d', 'live-e', 'live-f/input', 'live-f']);
    stop.abort();
    expect(names().filter((n) => n.startsWith('live-'))).toEqual([]);
  });

  it('should not grow over 1000 collections built and stopped', () => {
    const before = liveCollections().length;
    const source = newStaticCollection<{ id: string }>([{ id: 'x' }], { key: (o: { id: string }) => o.id });
    for (let i = 0; i < 1000; i++) {
      const stop = new AbortController();
      newCollection(source, (_ctx, o) => o, { stop: stop.signal, key: (o) => o.id });
      stop.abort();
    }
    expect(liveCollections().length).toBe(before + 1);
  });

  it('should forget a graph whose stop signal was dropped without aborting, once both are collected', async () => {
    const build = (): void => {
      const stop = new AbortController();
      const a = newStaticCollection<{ id: string }>([{ id: 'x' }], { name: 'dropped-a', stop: stop.signal, key: (o) => o.id });
      newCollection(a, (_ctx, o) => o, { name: 'dropped-b', stop: stop.signal, key: (o) => o.id });
      expect(names().filter((n) => n.startsWith('dropped-'))).toEqual(['dropped-a', 'dropped-b']);
    };
    build();
    await collect();
    expect(names().filter((n) => n.startsWith('dropped-'))).toEqual([]);
  });

  it('should forget a graph built without a stop signal once it is collected', async () => {
    const build = (): void => {
      const a = newStaticCollection<{ id: string }>([{ id: 'x' }], { name: 'unstoppable-a', key: (o) => o.id });
      newCollection(a, (_ctx, o) => o, { name: 'unstoppable-b', key: (o) => o.id });
      expect(names().filter((n) => n.startsWith('unstoppable-'))).toEqual(['unstoppable-a', 'unstoppable-b']);
    };
    build();
    await collect();
    await collect();
    expect(names().filter((n) => n.startsWith('unstoppable-'))).toEqual([]);
  });

  it('should keep a graph whose stop signal is still held, and drop it on abort', async () => {
    const stop = new AbortController();
    const a = newStaticCollection<{ id: string }>([{ id: 'x' }], { name: 'held-a', stop: stop.signal, key: (o) => o.id });
    newCollection(a, (_ctx, o) => o, { name: 'held-b', stop: stop.signal, key: (o) => o.id });
    await collect();
    expect(names().filter((n) => n.startsWith('held-'))).toEqual(['held-a', 'held-b']);
    stop.abort();
    expect(names().filter((n) => n.startsWith('held-'))).toEqual([]);
    // A collection given the signal after it aborted is disposed at once and never listed.
    newStaticCollection<{ id: string }>([], { name: 'held-late', stop: stop.signal });
    expect(names().filter((n) => n.startsWith('held-'))).toEqual([]);
  });
});
