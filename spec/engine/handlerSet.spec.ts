import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { newStaticCollection, newCollection, batch, type Event, type TransformError } from '../../src/index.js';
import { captureLog, drainMicrotasks, gate, subscribers, type Gate } from '../helpers/fixtures.js';

const keys = (b: readonly Event<string>[]): string => b.map((e) => `${e.type}/${e.new ?? e.old}`).join(',');

/**
 * A Promise handler whose every call waits on its own gate, so the test decides when each batch is
 * finished. `calls` records the batches in the order they were handed over.
 */
function gatedHandler() {
  const calls: string[] = [];
  const gates: Gate[] = [];
  const handler = (b: readonly Event<string>[]): Promise<void> => {
    calls.push(keys(b));
    const g = gate();
    gates.push(g);
    return g.promise;
  };
  /** Finishes the i-th call and lets the continuations run. */
  const finish = async (i: number): Promise<void> => {
    gates[i]!.open();
    await drainMicrotasks();
  };
  return { calls, handler, finish };
}

describe('HandlerSet (processor_test, registration sync rules)', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should sync a registration at once when the collection is synced and empty, never calling the handler', () => {
    const c = newStaticCollection<string>([]);
    let calls = 0;
    const reg = c.registerBatch(() => {
      calls++;
    });
    expect(reg.hasSynced()).toBe(true);
    expect(calls).toBe(0);
  });

  it('should not sync a registration before its collection syncs, even with no events', async () => {
    const c = newStaticCollection<string>([], { synced: false });
    const reg = c.registerBatch(() => {});
    expect(reg.hasSynced()).toBe(false);
    c.markSynced();
    expect(c.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(true);
    expect(await reg.waitUntilSynced()).toBe(true);
  });

  it('should wait for every batch delivered before the collection synced (no replay)', async () => {
    const c = newStaticCollection<string>([], { synced: false });
    const h = gatedHandler();
    const reg = c.registerBatch(h.handler);
    c.updateObject('a');
    c.updateObject('b');
    expect(h.calls).toEqual(['add/a']); // b waits behind a's Promise
    c.markSynced();
    expect(reg.hasSynced()).toBe(false);
    await h.finish(0);
    expect(h.calls).toEqual(['add/a', 'add/b']);
    expect(reg.hasSynced()).toBe(false);
    await h.finish(1);
    expect(reg.hasSynced()).toBe(true);
  });

  it('should wait for the replay and the batches before sync when there is initial state', async () => {
    const c = newStaticCollection<string>(['init'], { synced: false });
    const h = gatedHandler();
    const reg = c.registerBatch(h.handler);
    c.updateObject('a');
    c.updateObject('b');
    c.markSynced();
    await h.finish(0);
    expect(h.calls).toEqual(['add/init', 'add/a']);
    expect(reg.hasSynced()).toBe(false);
    await h.finish(1);
    expect(reg.hasSynced()).toBe(false);
    await h.finish(2);
    expect(h.calls).toEqual(['add/init', 'add/a', 'add/b']);
    expect(reg.hasSynced()).toBe(true);
  });

  it('should not wait for batches committed after the collection synced', async () => {
    const c = newStaticCollection<string>(['init'], { synced: false });
    const h = gatedHandler();
    const reg = c.registerBatch(h.handler);
    c.updateObject('a');
    c.updateObject('b');
    c.markSynced();
    c.updateObject('after');
    await h.finish(0);
    await h.finish(1);
    await h.finish(2);
    // "after" is now being handled (its Promise is pending) and the registration is synced regardless.
    expect(h.calls).toEqual(['add/init', 'add/a', 'add/b', 'add/after']);
    expect(reg.hasSynced()).toBe(true);
  });

  it('should sync after the replay when the collection is already synced', async () => {
    const c = newStaticCollection<string>(['init']);
    const h = gatedHandler();
    const reg = c.registerBatch(h.handler);
    expect(h.calls).toEqual(['add/init']);
    expect(reg.hasSynced()).toBe(false);
    c.updateObject('a');
    c.updateObject('b');
    await h.finish(0);
    expect(reg.hasSynced()).toBe(true);
    await h.finish(1);
    await h.finish(2);
    expect(h.calls).toEqual(['add/init', 'add/a', 'add/b']);
  });

  it('should deliver nothing to a handler unregistered before the collection synced', async () => {
    const c = newStaticCollection<string>([], { synced: false });
    let calls = 0;
    const reg = c.registerBatch(() => {
      calls++;
    });
    reg.unregister();
    c.updateObject('a');
    c.markSynced();
    c.updateObject('b');
    await drainMicrotasks();
    expect(calls).toBe(0);
    expect(reg.hasSynced()).toBe(false);
    const ac = new AbortController();
    const waiting = reg.waitUntilSynced(ac.signal);
    ac.abort();
    expect(await waiting).toBe(false);
  });

  it('should hand a Promise handler one batch per call, in order, never merged', async () => {
    const c = newStaticCollection<string>([]);
    const h = gatedHandler();
    c.registerBatch(h.handler, false);
    c.updateObject('a');
    c.updateObject('b');
    batch(() => {
      c.updateObject('c');
      c.updateObject('d');
    });
    c.deleteObject('a');
    expect(h.calls).toEqual(['add/a']);
    for (let i = 0; i < 4; i++) await h.finish(i);
    expect(h.calls).toEqual(['add/a', 'add/b', 'add/c,add/d', 'delete/a']);
  });

  it('should let other handlers and the collection go on while one handler is blocked', () => {
    const c = newStaticCollection<string>([]);
    const d = newCollection(c, (_ctx, s) => `${s}!`);
    const seen: string[] = [];
    c.registerBatch(() => new Promise<void>(() => {}), false);
    c.registerBatch((b) => {
      seen.push(keys(b));
    }, false);
    c.updateObject('a');
    c.updateObject('b');
    expect(seen).toEqual(['add/a', 'add/b']);
    expect(d.list().sort()).toEqual(['a!', 'b!']);
  });

  it('should call the handlers of one collection in registration order', () => {
    const c = newStaticCollection<string>([]);
    const order: number[] = [];
    for (let i = 0; i < 5; i++) c.register(() => void order.push(i));
    c.updateObject('x');
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('should report a throwing handler on errors$ at once and keep delivering to it', () => {
    const c = newStaticCollection<string>([], { name: 'Throwing' });
    const errors: TransformError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    c.register((e) => {
      seen.push(`${e.new}`);
      if (e.new === 'a') throw new Error('handler failed');
    });
    c.updateObject('a');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Throwing');
    expect(errors[0]!.key).toBeUndefined();
    expect((errors[0]!.error as Error).message).toBe('handler failed');
    c.updateObject('b');
    expect(seen).toEqual(['a', 'b']);
    expect(errors).toHaveLength(1);
    expect(log.lines.some((l) => l.includes('Throwing') && l.includes('handler failed'))).toBe(true);
  });

  it('should call a per-event handler for every event of a batch even when one call throws', async () => {
    const c = newStaticCollection<string>([]);
    const errors: TransformError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    c.register((e) => {
      seen.push(e.new!);
      if (e.new === 'a' || e.new === 'c') throw new Error(`bad ${e.new}`);
    });
    batch(() => {
      c.updateObject('a');
      c.updateObject('b');
      c.updateObject('c');
    });
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(errors).toHaveLength(1);
    expect((errors[0]!.error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['bad a', 'bad c']);
    // The same for a per-event handler that returns Promises.
    const seenAsync: string[] = [];
    c.register(async (e) => {
      seenAsync.push(e.new!);
      if (e.new === 'x') throw new Error('bad x');
    });
    await drainMicrotasks();
    expect(seenAsync).toEqual(['a', 'b', 'c']);
    seenAsync.length = 0;
    batch(() => {
      c.updateObject('x');
      c.updateObject('y');
    });
    await drainMicrotasks();
    expect(seenAsync).toEqual(['x', 'y']);
    expect(errors.map((e) => (e.error as Error).message)).toContain('bad x');
  });

  it('should report every rejected call of a per-event Promise handler, once the whole batch is handled', async () => {
    const c = newStaticCollection<string>([]);
    const errors: TransformError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    c.register(async (e) => {
      seen.push(e.new!);
      await Promise.resolve();
      if (e.new !== 'x') throw new Error(`bad ${e.new}`);
    });
    batch(() => {
      c.updateObject('x');
      c.updateObject('y');
      c.updateObject('z');
    });
    await drainMicrotasks();
    expect(seen).toEqual(['x', 'y', 'z']);
    expect(errors).toHaveLength(1);
    expect((errors[0]!.error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['bad y', 'bad z']);
    c.updateObject('y');
    await drainMicrotasks();
    expect(errors.map((e) => (e.error as Error).message).slice(1)).toEqual(['bad y']);
  });

  it('should not hand the batch being delivered to a handler that an earlier handler unregistered', () => {
    const c = newStaticCollection<string>([]);
    const seen: string[] = [];
    let second: { unregister(): void } | undefined = undefined;
    c.registerBatch((b) => {
      seen.push(`first ${keys(b)}`);
      second?.unregister();
    }, false);
    second = c.registerBatch((b) => void seen.push(`second ${keys(b)}`), false);
    c.updateObject('a');
    expect(seen).toEqual(['first add/a']);
    // Unregistering again changes nothing.
    second.unregister();
    c.updateObject('b');
    expect(seen).toEqual(['first add/a', 'first add/b']);
    expect(subscribers(c)).toBe(1);
  });

  it('should refuse a handler that is not a function, naming the collection', () => {
    const c = newStaticCollection<string>([], { name: 'Named' });
    expect(() => c.register(undefined as unknown as () => void)).toThrow('register on "Named" needs a function');
    expect(() => c.registerBatch('nope' as unknown as () => void)).toThrow('registerBatch on "Named" needs a function');
    expect(subscribers(c)).toBe(0);
  });

  it('should report a rejected handler Promise and go on with the next batch', async () => {
    const c = newStaticCollection<string>([]);
    const errors: TransformError[] = [];
    c.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    c.registerBatch(async (b) => {
      seen.push(keys(b));
      if (b[0]!.new === 'a') throw new Error('rejected');
    }, false);
    c.updateObject('a');
    c.updateObject('b');
    await drainMicrotasks();
    expect(seen).toEqual(['add/a', 'add/b']);
    expect(errors.map((e) => (e.error as Error).message)).toEqual(['rejected']);
  });

  it('should drop batches queued for a Promise handler when it is unregistered', async () => {
    const c = newStaticCollection<string>([]);
    const h = gatedHandler();
    const reg = c.registerBatch(h.handler, false);
    c.updateObject('a');
    c.updateObject('b');
    reg.unregister();
    c.updateObject('c');
    await h.finish(0);
    expect(h.calls).toEqual(['add/a']);
  });

  it('should replay one batch for registerBatch and one call per event for register', () => {
    const c = newStaticCollection<string>(['a', 'b']);
    const batches: string[] = [];
    c.registerBatch((b) => void batches.push(keys(b)));
    expect(batches.map((b) => b.split(',').sort().join(','))).toEqual(['add/a,add/b']);
    const events: string[] = [];
    c.register((e) => void events.push(`${e.type}/${e.new}`));
    expect(events.sort()).toEqual(['add/a', 'add/b']);
    const none: string[] = [];
    c.registerBatch((b) => void none.push(keys(b)), false);
    expect(none).toEqual([]);
    c.updateObject('c');
    expect(none).toEqual(['add/c']);
  });

  it('should never re-enter a handler that mutates its own collection during its replay', () => {
    const c = newStaticCollection<string>(['a']);
    const log: string[] = [];
    c.register((e) => {
      log.push(`start ${e.new}`);
      if (e.new === 'a') c.updateObject('b');
      log.push(`end ${e.new}`);
    });
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(c.list().sort()).toEqual(['a', 'b']);
  });

  it('should never re-enter a Promise handler whose synchronous part mutates its own collection', async () => {
    const c = newStaticCollection<string>([]);
    const log: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    c.registerBatch((b) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const v = b[0]!.new!;
      log.push(v);
      // The synchronous part of a resumed Promise handler runs outside any delivery: the mutation commits at once.
      if (v.length < 4) c.updateObject(`${v}+`);
      return Promise.resolve().then(() => {
        inFlight--;
      });
    }, false);
    c.updateObject('a');
    await drainMicrotasks(50);
    expect(log).toEqual(['a', 'a+', 'a++', 'a+++']);
    expect(maxInFlight).toBe(1);
  });

  it('should replay the current state synchronously to an events$ subscriber, then live batches', () => {
    const c = newStaticCollection<string>(['a']);
    const got: string[] = [];
    const sub = c.events$.subscribe((b) => got.push(keys(b)));
    expect(got).toEqual(['add/a']);
    c.updateObject('b');
    expect(got).toEqual(['add/a', 'add/b']);
    sub.unsubscribe();
    c.updateObject('c');
    expect(got).toEqual(['add/a', 'add/b']);
    expect(subscribers(c)).toBe(0);
  });
});
