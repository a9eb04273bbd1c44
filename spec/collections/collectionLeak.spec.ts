// Disposal: `stop` releases everything a collection subscribed to (krt's collection_leak_test, 1000 rounds per kind).
import { describe, it, expect } from '@jest/globals';
import {
  newStaticCollection,
  newStatic,
  newCollection,
  newManyCollection,
  newSingleton,
  newManyFromNothing,
  mapCollection,
  newIndex,
  joinCollection,
  joinWithMergeCollection,
  nestedJoinWithMergeCollection,
  nestedJoinCollection,
  fetch,
  filterKey,
  filterIndex,
  filterLabel,
  type Collection,
} from '../../src/index.js';
import { subscribers } from '../helpers/fixtures.js';

interface Named {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
}
const named = (name: string, labels?: Record<string, string>): Named => ({
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
});

const ROUNDS = 1000;

/** Long-lived sources every round reads. */
function sources() {
  const pods = newStaticCollection<Named>([named('a', { app: 'x' }), named('b', { app: 'y' })], { name: 'pods' });
  const cms = newStaticCollection<Named>([named('cfg', { app: 'x' })], { name: 'cms' });
  const single = newStatic<Named>(named('s'), { name: 'single' });
  const byApp = newIndex(cms, 'app', (c) => [c.metadata.labels?.['app'] ?? '']);
  return { pods, cms, single, byApp };
}

type Sources = ReturnType<typeof sources>;

/** One derived kind: builds it under `stop` and returns what its contents must be right after. */
interface Kind {
  readonly name: string;
  build(s: Sources, stop: AbortSignal): { c: Collection<unknown>; expected: unknown[] };
}

const sorted = (xs: unknown[]): unknown[] => xs.map((x) => JSON.stringify(x)).sort();

const KINDS: readonly Kind[] = [
  {
    name: 'newCollection with fetches',
    build: (s, stop) => ({
      c: newCollection(
        s.pods,
        (ctx, p) => ({
          ...p,
          n: fetch(ctx, s.cms, filterLabel(p.metadata.labels ?? {})).length + fetch(ctx, s.cms, filterKey('ns/cfg')).length,
        }),
        { stop },
      ),
      expected: [
        { ...named('a', { app: 'x' }), n: 2 },
        { ...named('b', { app: 'y' }), n: 1 },
      ],
    }),
  },
  {
    name: 'newManyCollection with an index fetch',
    build: (s, stop) => ({
      c: newManyCollection(
        s.pods,
        (ctx, p) =>
          fetch(ctx, s.cms, filterIndex(s.byApp, p.metadata.labels?.['app'] ?? '')).map((c) => `${p.metadata.name}:${c.metadata.name}`),
        { stop },
      ),
      expected: ['a:cfg'],
    }),
  },
  {
    name: 'newSingleton',
    build: (s, stop) => ({
      c: newSingleton((ctx) => ({ n: fetch(ctx, s.pods).length + fetch(ctx, s.single.asCollection()).length }), { stop }).asCollection(),
      expected: [{ n: 3 }],
    }),
  },
  {
    name: 'newManyFromNothing',
    build: (s, stop) => ({
      c: newManyFromNothing((ctx) => fetch(ctx, s.pods).map((p) => p.metadata.name), { stop }),
      expected: ['a', 'b'],
    }),
  },
  {
    name: 'mapCollection',
    build: (s, stop) => ({
      c: mapCollection(s.pods, (p) => ({ ...p, mapped: true }), { stop }),
      expected: [
        { ...named('a', { app: 'x' }), mapped: true },
        { ...named('b', { app: 'y' }), mapped: true },
      ],
    }),
  },
  {
    name: 'index as collection',
    build: (s, stop) => ({ c: s.byApp.asCollection({ stop }), expected: [{ key: 'x', objects: [named('cfg', { app: 'x' })] }] }),
  },
  {
    name: 'joinCollection',
    build: (s, stop) => ({
      c: joinCollection([s.pods, s.cms], { stop }),
      expected: [named('a', { app: 'x' }), named('b', { app: 'y' }), named('cfg', { app: 'x' })],
    }),
  },
  {
    name: 'joinWithMergeCollection',
    build: (s, stop) => ({
      c: joinWithMergeCollection([s.pods, s.cms], (vs) => vs[0], { stop }),
      expected: [named('a', { app: 'x' }), named('b', { app: 'y' }), named('cfg', { app: 'x' })],
    }),
  },
  {
    name: 'nestedJoinWithMergeCollection',
    build: (s, stop) => ({
      c: nestedJoinWithMergeCollection(newStaticCollection<Collection<Named>>([s.pods, s.cms]), (vs) => vs[0], { stop }),
      expected: [named('a', { app: 'x' }), named('b', { app: 'y' }), named('cfg', { app: 'x' })],
    }),
  },
  {
    name: 'nestedJoinCollection',
    build: (s, stop) => ({
      c: nestedJoinCollection(newStaticCollection<Collection<Named>>([s.pods, s.cms]), { stop }),
      expected: [named('a', { app: 'x' }), named('b', { app: 'y' }), named('cfg', { app: 'x' })],
    }),
  },
  {
    name: 'a chain of derived collections with handlers and events$',
    build: (s, stop) => {
      const mid = newCollection(s.pods, (ctx, p) => ({ ...p, n: fetch(ctx, s.cms).length }), { stop });
      const top = newCollection(mid, (_ctx, p) => p.metadata.name, { stop });
      // Handlers on collections that are disposed with them hold nothing upstream.
      top.register(() => {});
      const sub = mid.events$.subscribe(() => {});
      stop.addEventListener('abort', () => sub.unsubscribe(), { once: true });
      return { c: top, expected: ['a', 'b'] };
    },
  },
];

describe('collection disposal', () => {
  for (const kind of KINDS) {
    it(`should leave upstream subscriber counts at baseline after ${ROUNDS} rounds: ${kind.name}`, () => {
      const s = sources();
      const baseline = [subscribers(s.pods), subscribers(s.cms), subscribers(s.single)];
      for (let i = 0; i < ROUNDS; i++) {
        const ac = new AbortController();
        const { c, expected } = kind.build(s, ac.signal);
        expect(c.hasSynced()).toBe(true);
        if (i % 100 === 0) expect(sorted(c.list())).toEqual(sorted(expected));
        ac.abort();
      }
      expect([subscribers(s.pods), subscribers(s.cms), subscribers(s.single)]).toEqual(baseline);
    });
  }

  it('should stop following its sources after stop and keep its last state readable', () => {
    const s = sources();
    const ac = new AbortController();
    const c = newCollection(s.pods, (ctx, p) => ({ ...p, n: fetch(ctx, s.cms).length }), { stop: ac.signal });
    const seen: string[] = [];
    c.register((e) => void seen.push(e.type));
    ac.abort();
    s.pods.updateObject(named('c'));
    s.cms.updateObject(named('cfg2'));
    expect(c.list()).toHaveLength(2);
    expect(c.getKey('ns/a')).toEqual({ ...named('a', { app: 'x' }), n: 1 });
    expect(seen).toEqual(['add', 'add']);
  });

  it('should emit nothing for the transaction it is stopped in, once the batch of its parent has reached it', () => {
    const src = newStaticCollection<Named>([named('a')]);
    const ac = new AbortController();
    // Built first, so it flushes before `c` at the same rank: any user code that runs while a transaction
    // propagates (a transform, a filter, an equals) may abort a signal, here after src's batch reached `c`.
    const stopper = newCollection(src, (_ctx, p) => {
      if (p.metadata.name === 'b') ac.abort();
      return p;
    });
    const c = newCollection(src, (_ctx, p) => ({ ...p, seen: true }), { stop: ac.signal });
    const seen: string[] = [];
    c.register((e) => void seen.push(`${e.type}:${(e.new ?? e.old)!.metadata.name}`));
    src.updateObject(named('b'));
    expect(ac.signal.aborted).toBe(true);
    expect(stopper.list()).toHaveLength(2);
    expect(seen).toEqual(['add:a']);
    expect(c.list().map((p) => p.metadata.name)).toEqual(['a']);
    expect(subscribers(src)).toBe(1);
    src.updateObject(named('a', { app: 'y' }));
    expect(seen).toEqual(['add:a']);
  });

  it('should resolve waitUntilSynced false for a collection disposed before it synced', async () => {
    const src = newStaticCollection<Named>([], { synced: false });
    const ac = new AbortController();
    const c = newCollection(src, (_ctx, p) => p, { stop: ac.signal });
    const waiting = c.waitUntilSynced();
    ac.abort();
    expect(await waiting).toBe(false);
    expect(await c.waitUntilSynced()).toBe(false);
    src.markSynced();
    expect(c.hasSynced()).toBe(false);
    expect(subscribers(src)).toBe(0);
  });

  it('should release a fetched collection once no input reads it any more', () => {
    const s = sources();
    const reader = newCollection(s.pods, (ctx, p) => (p.metadata.labels?.['app'] === 'x' ? { ...p, n: fetch(ctx, s.cms).length } : p));
    expect(subscribers(s.cms)).toBe(1);
    s.pods.updateObject(named('a', { app: 'z' }));
    expect(subscribers(s.cms)).toBe(0);
    expect(reader.getKey('ns/a')).toEqual(named('a', { app: 'z' }));
  });
});
