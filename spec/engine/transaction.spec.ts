import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  batch,
  newStaticCollection,
  newCollection,
  newSingleton,
  fetch,
  filterGeneric,
  UsageError,
  type Collection,
  type Event,
  type StaticCollection,
  type TransformError,
} from '../../src/index.js';
import { MAX_FEEDBACK_ROUNDS, schedule, type TxNode } from '../../src/engine/transaction.js';
import { captureLog } from '../helpers/fixtures.js';

const fmt = (b: readonly Event<string>[]): string => b.map((e) => `${e.type}/${e.new ?? e.old}`).join(',');

/** Two string sources, and the batches `b` commits from now on. */
function sourcesWithBatchesOfB(): { a: StaticCollection<string>; b: StaticCollection<string>; seen: string[] } {
  const a = newStaticCollection<string>([]);
  const b = newStaticCollection<string>([]);
  const seen: string[] = [];
  b.registerBatch((x) => void seen.push(fmt(x)), false);
  return { a, b, seen };
}

describe('batch', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should commit its mutations as one transaction: one batch per collection', () => {
    const a = newStaticCollection<string>([]);
    const b = newStaticCollection<string>([]);
    const joined = newSingleton((ctx) => [...fetch(ctx, a), ...fetch(ctx, b)].sort().join('+'));
    const seen: string[] = [];
    a.registerBatch((x) => void seen.push(`a:${fmt(x)}`), false);
    b.registerBatch((x) => void seen.push(`b:${fmt(x)}`), false);
    const runs: string[] = [];
    joined.asCollection().registerBatch((x) => void runs.push(fmt(x)), false);
    batch(() => {
      a.updateObject('1');
      b.updateObject('2');
      a.updateObject('3');
    });
    expect(seen).toEqual(['a:add/1,add/3', 'b:add/2']);
    expect(runs.map((r) => r.split(',').sort().join(','))).toEqual(['add/1+2+3,delete/']);
  });

  it('should join nested batches to the outermost one', () => {
    const a = newStaticCollection<string>([]);
    const seen: string[] = [];
    a.registerBatch((x) => void seen.push(fmt(x)), false);
    batch(() => {
      a.updateObject('1');
      batch(() => {
        a.updateObject('2');
        batch(() => a.updateObject('3'));
      });
      expect(seen).toEqual([]);
      a.updateObject('4');
    });
    expect(seen).toEqual(['add/1,add/2,add/3,add/4']);
  });

  it('should commit what came before a throw, then rethrow', () => {
    const a = newStaticCollection<string>([]);
    const d = newCollection(a, (_ctx, s) => `${s}!`);
    const seen: string[] = [];
    a.registerBatch((x) => void seen.push(fmt(x)), false);
    expect(() =>
      batch(() => {
        a.updateObject('1');
        throw new Error('stop here');
      }),
    ).toThrow('stop here');
    expect(a.list()).toEqual(['1']);
    expect(d.list()).toEqual(['1!']);
    expect(seen).toEqual(['add/1']);
    // The engine is usable afterwards.
    a.updateObject('2');
    expect(d.list().sort()).toEqual(['1!', '2!']);
  });

  it('should keep the outer batch going when a nested batch throws and is caught', () => {
    const a = newStaticCollection<string>([]);
    const seen: string[] = [];
    a.registerBatch((x) => void seen.push(fmt(x)), false);
    batch(() => {
      a.updateObject('1');
      try {
        batch(() => {
          a.updateObject('2');
          throw new Error('inner');
        });
      } catch {
        // handled
      }
      a.updateObject('3');
    });
    expect(seen).toEqual(['add/1,add/2,add/3']);
  });

  it('should run a mutation made by a handler in a new transaction after the current delivery', () => {
    const a = newStaticCollection<string>([]);
    const b = newStaticCollection<string>([]);
    const order: string[] = [];
    a.register((e) => {
      order.push(`h1 sees a:${e.new}`);
      b.updateObject(`from-${e.new}`);
      // Not applied yet: it waits until this delivery is over.
      order.push(`h1 reads b:${b.list().join(',')}`);
    });
    a.register((e) => void order.push(`h2 sees a:${e.new}`));
    b.register((e) => void order.push(`hb sees b:${e.new}`));
    a.updateObject('x');
    expect(order).toEqual(['h1 sees a:x', 'h1 reads b:', 'h2 sees a:x', 'hb sees b:from-x']);
    expect(b.list()).toEqual(['from-x']);
  });

  it('should run a batch called from a handler after the current delivery as well', () => {
    const { a, b, seen } = sourcesWithBatchesOfB();
    a.register(() => {
      batch(() => {
        b.updateObject('1');
        b.updateObject('2');
      });
    });
    a.updateObject('go');
    expect(seen).toEqual(['add/1,add/2']);
  });

  it('should log a mutation deferred from a handler that throws, keep what it wrote, and still run the others', () => {
    const { a, b, seen } = sourcesWithBatchesOfB();
    a.register(() => {
      // Deferred until this delivery is over; by then nobody is left to rethrow to.
      batch(() => {
        b.updateObject('before-throw');
        throw new Error('deferred mutation failed');
      });
      batch(() => b.updateObject('next'));
    });
    expect(() => a.updateObject('go')).not.toThrow();
    // The mutations deferred from one delivery commit together, after it; the one that threw keeps what it
    // wrote before the throw, as a batch does, and does not stop the next.
    expect(seen).toEqual(['add/before-throw,add/next']);
    expect(log.lines.filter((l) => l.includes('a mutation deferred from a handler or transform threw'))).toHaveLength(1);
    // The engine is not wedged: the next delivery defers and runs its mutations the same way.
    a.updateObject('again');
    expect(seen).toEqual(['add/before-throw,add/next', 'update/before-throw,update/next']);
    expect(log.lines.filter((l) => l.includes('a mutation deferred from a handler or transform threw'))).toHaveLength(2);
  });

  it('should let handlers see the committed state of every collection', () => {
    const a = newStaticCollection<string>([]);
    const d = newCollection(a, (_ctx, s) => `${s}!`);
    const seen: string[] = [];
    a.register(() => void seen.push(d.list().sort().join(',')));
    batch(() => {
      a.updateObject('1');
      a.updateObject('2');
    });
    expect(seen).toEqual(['1!,2!', '1!,2!']);
  });

  it('should report a transform that fetches downstream of itself (a cycle) and keep its last output', () => {
    const a = newStaticCollection<string>(['x']);
    const holder: { down?: Collection<string> } = {};
    const up = newCollection(a, (ctx, s) => (s === 'cycle' && holder.down ? fetch(ctx, holder.down).join() : s), { name: 'Up' });
    holder.down = newCollection(up, (_ctx, s) => `${s}!`);
    const errors: TransformError[] = [];
    up.errors$.subscribe((e) => errors.push(e));
    a.updateObject('cycle');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Up');
    expect(errors[0]!.key).toBe('cycle');
    expect(errors[0]!.error).toBeInstanceOf(UsageError);
    expect(String((errors[0]!.error as Error).message)).toMatch(/cycle/);
    a.updateObject('y');
    expect(holder.down.list().sort()).toEqual(['x!', 'y!']);
  });

  it('should stay usable after a node throws while propagating, and rethrow to the caller', () => {
    // White-box: a node whose flush throws stands for an engine bug; the engine must not wedge.
    const failing: TxNode = {
      name: 'Failing',
      rank: 0,
      uid: -1,
      queued: false,
      syncQueued: false,
      flush: () => {
        throw new Error('node failed');
      },
      evaluateSync: () => {},
      checkInvariants: () => {},
      reportError: () => {},
    };
    const a = newStaticCollection<string>([]);
    const d = newCollection(a, (_ctx, s) => `${s}!`);
    const seen: string[] = [];
    a.register((e) => void seen.push(`${e.type}/${e.new}`));
    expect(() =>
      batch(() => {
        a.updateObject('1');
        schedule(failing);
      }),
    ).toThrow('node failed');
    expect(d.list()).toEqual(['1!']);
    expect(seen).toEqual(['add/1']);
    a.updateObject('2');
    expect(d.list().sort()).toEqual(['1!', '2!']);
    expect(seen).toEqual(['add/1', 'add/2']);
    expect(log.lines.some((l) => l.includes('failed while propagating'))).toBe(true);
  });

  it('should treat a source equals option that throws as "changed" and report it', () => {
    const c = newStaticCollection<{ metadata: { name: string }; v: number }>([{ metadata: { name: 'a' }, v: 1 }], {
      name: 'BadEquals',
      equals: (x: { v: number }, y: { v: number }) => {
        if (y.v === 99) throw new Error('cannot compare');
        return x.v === y.v;
      },
    });
    const errors: TransformError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    c.register((e) => void seen.push(`${e.type}:${e.new?.v}`));
    batch(() => {
      c.deleteObject('a');
      c.conditionalUpdateObject({ metadata: { name: 'a' }, v: 99 });
    });
    expect(seen).toEqual(['add:1', 'update:99']);
    expect(errors.map((e) => e.collection)).toEqual(['BadEquals']);
    c.updateObject({ metadata: { name: 'b' }, v: 2 });
    expect(seen).toEqual(['add:1', 'update:99', 'add:2']);
  });

  it('should keep propagating when a fetch filter throws, and report it on errors$', () => {
    const a = newStaticCollection<string>(['in']);
    const t = newStaticCollection<{ metadata: { name: string }; bad?: boolean }>([{ metadata: { name: 'x' } }]);
    const d = newCollection(
      a,
      (ctx, s) =>
        `${s}:${
          fetch(
            ctx,
            t,
            filterGeneric((o: { bad?: boolean }) => {
              if (o.bad === true) throw new Error('bad filter');
              return true;
            }),
          ).length
        }`,
      { name: 'Filtered' },
    );
    const errors: string[] = [];
    d.errors$.subscribe((e) => errors.push(`${e.collection}:${e.key}:${(e.error as Error).message}`));
    t.updateObject({ metadata: { name: 'x' }, bad: true });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toBe('Filtered:in:bad filter');
    expect(d.list()).toEqual(['in:1']); // the last good output stays
    t.updateObject({ metadata: { name: 'x' } });
    t.updateObject({ metadata: { name: 'y' } });
    expect(d.list()).toEqual(['in:2']);
    a.updateObject('more');
    expect(d.list().sort()).toEqual(['in:2', 'more:2']);
  });
});

describe('a feedback loop', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should stop after MAX_FEEDBACK_ROUNDS transactions, keep everything committed, and report on errors$ naming the collection', () => {
    const counter = newStaticCollection<number>([], { name: 'Counter', key: () => 'count' });
    const errors: TransformError[] = [];
    counter.errors$.subscribe((e) => errors.push(e));
    let handled = 0;
    // Writes to the collection it listens to, on every batch: without a bound this never returns.
    counter.registerBatch((b) => {
      handled++;
      counter.updateObject(b[0]!.new! + 1);
    }, false);
    counter.updateObject(0);
    expect(handled).toBe(MAX_FEEDBACK_ROUNDS);
    expect(counter.list()).toEqual([MAX_FEEDBACK_ROUNDS - 1]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Counter');
    expect(errors[0]!.error).toBeInstanceOf(UsageError);
    expect(errors[0]!.message).toMatch(
      /feedback loop: handlers kept writing for 1000 transactions in a row.*"Counter".*1 waiting write was dropped, everything before stays committed/,
    );
    // The engine is usable again at once.
    const quiet = newStaticCollection<number>([], { key: () => 'n' });
    quiet.updateObject(7);
    expect(quiet.list()).toEqual([7]);
  });

  it('should let a chain of handlers writing to each other run to its end when it ends', () => {
    const chain = Array.from({ length: 50 }, (_, i) => newStaticCollection<number>([], { name: `C${i}`, key: () => 'v' }));
    for (let i = 0; i + 1 < chain.length; i++) {
      const next = chain[i + 1]!;
      chain[i]!.registerBatch((b) => next.updateObject(b[0]!.new! + 1), false);
    }
    chain[0]!.updateObject(0);
    expect(chain[49]!.list()).toEqual([49]);
  });
});
