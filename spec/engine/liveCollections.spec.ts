import { describe, it, expect } from '@jest/globals';
import { joinCollection, mapCollection, newCollection, newIndex, newSingleton, newStaticCollection } from '../../src/index.js';
import { liveCollections } from '../../src/engine/liveCollections.js';

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
});
