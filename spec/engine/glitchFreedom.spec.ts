// Glitch freedom: nobody (transform, handler, events$ subscriber) ever sees a collection ahead of, or behind, what it derives from.
import { describe, it, expect } from '@jest/globals';
import {
  batch,
  fetch,
  fetchOne,
  filterKey,
  newCollection,
  newSingleton,
  newStaticCollection,
  type Collection,
  type Event,
} from '../../src/index.js';
import { seededRandom } from '../../src/testing/index.js';

interface A {
  metadata: { name: string };
  v: number;
  link?: boolean;
}
interface B {
  metadata: { name: string };
  b: number;
}
interface C {
  metadata: { name: string };
  c: number;
}
interface D {
  metadata: { name: string };
  b: number;
  c: number;
}

const fb = (v: number): number => v * 2;
const fc = (v: number): number => v + 100;

function diamond(dynamic: boolean) {
  const a = newStaticCollection<A>([], { name: 'A' });
  const b = newCollection(a, (_ctx, x): B => ({ metadata: x.metadata, b: fb(x.v) }), { name: 'B' });
  // C is three steps from A, so it ranks above D's parent B and above D itself until D reads it: D's reads
  // of C are the ones a naive engine gets wrong.
  const c1 = newCollection(a, (_ctx, x): C => ({ metadata: x.metadata, c: x.v }), { name: 'C1' });
  const c2 = newCollection(c1, (_ctx, x): C => ({ metadata: x.metadata, c: x.c }), { name: 'C2' });
  const c = newCollection(c2, (_ctx, x): C => ({ metadata: x.metadata, c: fc(x.c) }), { name: 'C' });
  const transformViolations: string[] = [];
  const d = newCollection(
    b,
    (ctx, x): D | undefined => {
      const src = fetchOne(ctx, a, filterKey(x.metadata.name));
      // In the dynamic variant D reads C only for linked inputs, so it starts reading C (ranked above it)
      // in the middle of transactions.
      if (dynamic && src?.link !== true) return { metadata: x.metadata, b: x.b, c: -1 };
      const cv = fetchOne(ctx, c, filterKey(x.metadata.name));
      if (!dynamic && (src === undefined || cv === undefined || x.b !== fb(src.v) || cv.c !== fc(src.v))) {
        transformViolations.push(`D(${x.metadata.name}) read b=${x.b} c=${cv?.c} for a=${src?.v}`);
      }
      return cv === undefined ? undefined : { metadata: x.metadata, b: x.b, c: cv.c };
    },
    { name: 'D' },
  );
  const total = newSingleton(
    (ctx) => ({
      b: fetch(ctx, b).reduce((s, x) => s + x.b, 0),
      c: fetch(ctx, c).reduce((s, x) => s + x.c, 0),
      n: fetch(ctx, d).length,
    }),
    { name: 'Total' },
  );
  return { a, b, c, d, total, transformViolations };
}

/** What D must hold for one A object. */
function expectedD(x: A, dynamic: boolean): D {
  return { metadata: x.metadata, b: fb(x.v), c: dynamic && x.link !== true ? -1 : fc(x.v) };
}

function run(dynamic: boolean, seed: number, ops: number): void {
  const g = diamond(dynamic);
  // Start from unlinked objects, so that D's first read of C (which lifts D's rank for good) happens in
  // the middle of a random transaction rather than while D is being built.
  batch(() => {
    for (const name of ['p', 'q', 'r']) g.a.updateObject({ metadata: { name }, v: 0 });
  });
  const violations: string[] = [];
  const check = (what: string, ok: boolean): void => {
    if (!ok) violations.push(what);
  };
  let prevA = new Map<string, A>();

  // Every batch D emits: old values match A before the transaction, new values match A now.
  g.d.registerBatch((events: readonly Event<D>[]) => {
    for (const e of events) {
      const name = (e.new ?? e.old)!.metadata.name;
      const now = g.a.getKey(name);
      const before = prevA.get(name);
      if (e.new !== undefined)
        check(`D ${e.type} ${name} new`, now !== undefined && JSON.stringify(e.new) === JSON.stringify(expectedD(now, dynamic)));
      if (e.old !== undefined)
        check(`D ${e.type} ${name} old`, before !== undefined && JSON.stringify(e.old) === JSON.stringify(expectedD(before, dynamic)));
      // Reads of B and C from D's handler are consistent with A.
      const bv = g.b.getKey(name);
      const cv = g.c.getKey(name);
      check(`B read in D handler for ${name}`, now === undefined ? bv === undefined : bv?.b === fb(now.v));
      check(`C read in D handler for ${name}`, now === undefined ? cv === undefined : cv?.c === fc(now.v));
    }
  });
  // A handler of B (upstream of D) sees D already updated.
  g.b.registerBatch((events: readonly Event<B>[]) => {
    for (const e of events) {
      const name = (e.new ?? e.old)!.metadata.name;
      const now = g.a.getKey(name);
      const dv = g.d.getKey(name);
      check(
        `D read in B handler for ${name}`,
        now === undefined ? dv === undefined : JSON.stringify(dv) === JSON.stringify(expectedD(now, dynamic)),
      );
    }
  });
  // The singleton over B, C and D is consistent whenever it changes.
  g.total.register((e) => {
    const all = g.a.list();
    check(
      'Total',
      JSON.stringify(e.new ?? null) ===
        JSON.stringify(
          e.type === 'delete'
            ? null
            : {
                b: all.reduce((s, x) => s + fb(x.v), 0),
                c: all.reduce((s, x) => s + fc(x.v), 0),
                n: all.length,
              },
        ),
    );
  });
  // Every D batch arrives once per transaction.
  let dBatches = 0;
  g.d.registerBatch(() => void dBatches++, false);

  const random = seededRandom(seed);
  const names = ['p', 'q', 'r', 's', 't', 'u'];
  const mutateOnce = (): void => {
    const name = names[Math.floor(random() * names.length)]!;
    const r = random();
    if (r < 0.2) g.a.deleteObject(name);
    else g.a.updateObject({ metadata: { name }, v: Math.floor(random() * 5), ...(random() < 0.5 ? { link: true } : {}) });
  };
  for (let i = 0; i < ops; i++) {
    prevA = new Map(g.a.list().map((x) => [x.metadata.name, x]));
    const before = dBatches;
    if (random() < 0.4) {
      const n = 1 + Math.floor(random() * 4);
      batch(() => {
        for (let j = 0; j < n; j++) mutateOnce();
      });
    } else {
      mutateOnce();
    }
    check(`at most one D batch per transaction (op ${i})`, dBatches - before <= 1);
    // After the transaction, every collection holds exactly what A implies.
    const expected = g.a
      .list()
      .map((x) => JSON.stringify(expectedD(x, dynamic)))
      .sort();
    check(
      `D contents after op ${i}`,
      JSON.stringify(
        g.d
          .list()
          .map((x) => JSON.stringify(x))
          .sort(),
      ) === JSON.stringify(expected),
    );
    if (violations.length > 0) break;
  }
  expect(violations.slice(0, 5)).toEqual([]);
  expect(g.transformViolations.slice(0, 5)).toEqual([]);
}

describe('glitch freedom', () => {
  it('should never let D, its handlers or its transform see B and C out of step with A (diamond)', () => {
    for (const seed of [1, 2, 3]) run(false, seed, 400);
  });

  it('should stay glitch-free when D starts reading C in the middle of a transaction', () => {
    // Fresh graphs: the interesting moment (D's rank rising) happens once per graph.
    for (let seed = 100; seed < 160; seed++) run(true, seed, 30);
  });

  it('should give events$ subscribers of D values consistent with A', () => {
    const g = diamond(false);
    const seen: string[] = [];
    g.d.events$.subscribe((events) => {
      for (const e of events) if (e.new) seen.push(`${e.new.metadata.name}:${e.new.b}:${e.new.c}:${g.a.getKey(e.new.metadata.name)?.v}`);
    });
    batch(() => {
      g.a.updateObject({ metadata: { name: 'x' }, v: 1 });
      g.a.updateObject({ metadata: { name: 'y' }, v: 2 });
    });
    g.a.updateObject({ metadata: { name: 'x' }, v: 3 });
    expect(seen.sort()).toEqual(['x:2:101:1', 'x:6:103:3', 'y:4:102:2'].sort());
  });

  it('should show every collection updated to a handler of the source itself', () => {
    const g = diamond(false);
    const reads: string[] = [];
    (g.a as Collection<A>).register((e) => {
      const n = e.new?.metadata.name ?? 'gone';
      reads.push(`${g.b.getKey(n)?.b}/${g.c.getKey(n)?.c}/${g.d.getKey(n)?.c}/${g.total.get()?.n}`);
    });
    g.a.updateObject({ metadata: { name: 'x' }, v: 1 });
    expect(reads).toEqual(['2/101/101/1']);
  });
});
