import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Subject } from 'rxjs';
import { newStaticCollection, setLogger, UsageError } from '../../src/index.js';
import { newReconciler, type Gate, type ReconcileContext, type ReconcileError, type ReconcileResult } from '../../src/kube/index.js';
import { VirtualClock } from '../helpers/virtualClock.js';

// The queue's rules in virtual time: every reconcile takes `work` virtual ms, and a trace records
// `<time> <what> <key>` lines, so a test states the exact schedule the rules imply.

interface Item {
  metadata: { name: string };
  v: number;
}

const item = (name: string, v = 1): Item => ({ metadata: { name }, v });

function rig(opts: { work?: number; fail?: (obj: Item, ctx: ReconcileContext) => boolean; result?: (obj: Item) => ReconcileResult } = {}) {
  const clock = new VirtualClock();
  const items = newStaticCollection<Item>([], { name: 'Items' });
  const trace: string[] = [];
  const running = new Set<string>();
  let maxInFlight = 0;
  let overlaps = 0;
  const signals: AbortSignal[] = [];
  const reconcile = async (obj: Item, ctx: ReconcileContext): Promise<ReconcileResult> => {
    if (running.has(ctx.key)) overlaps++;
    running.add(ctx.key);
    maxInFlight = Math.max(maxInFlight, running.size);
    signals.push(ctx.signal);
    trace.push(`${clock.now()} start ${ctx.key} v${obj.v} #${ctx.attempt}`);
    try {
      await clock.sleep(opts.work ?? 10);
      if (ctx.signal.aborted) {
        trace.push(`${clock.now()} aborted ${ctx.key}`);
        return;
      }
      if (opts.fail?.(obj, ctx)) throw new Error(`boom ${ctx.key}`);
      return opts.result?.(obj);
    } finally {
      running.delete(ctx.key);
    }
  };
  return { clock, items, trace, reconcile, signals, stats: () => ({ maxInFlight, overlaps }) };
}

describe('newReconciler', () => {
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  it('should reconcile every object once, and a key queued many times while it waits only once, with the latest object', async () => {
    const r = rig();
    const rec = newReconciler(r.items, r.reconcile, { concurrency: 1, timerScheduler: r.clock.scheduler });
    r.items.updateObject(item('a'));
    r.items.updateObject(item('b'));
    r.items.updateObject(item('b', 2));
    r.items.updateObject(item('b', 3));
    await r.clock.advance(100);
    expect(r.trace).toEqual(['0 start a v1 #1', '10 start b v3 #1']);
    expect(rec.stats()).toMatchObject({ reconciles: 2, succeeded: 2, queued: 0, inFlight: 0 });
    rec.stop();
  });

  it('should run a key that changes while it runs once more afterwards, with the latest object, never two at once', async () => {
    const r = rig();
    const rec = newReconciler(r.items, r.reconcile, { concurrency: 4, timerScheduler: r.clock.scheduler });
    r.items.updateObject(item('a'));
    await r.clock.advance(3);
    r.items.updateObject(item('a', 2));
    await r.clock.advance(2);
    r.items.updateObject(item('a', 3));
    await r.clock.advance(100);
    expect(r.trace).toEqual(['0 start a v1 #1', '10 start a v3 #1']);
    expect(r.stats().overlaps).toBe(0);
    rec.stop();
  });

  it('should keep at most `concurrency` reconciles in flight', async () => {
    const r = rig();
    const rec = newReconciler(r.items, r.reconcile, { concurrency: 2, timerScheduler: r.clock.scheduler });
    for (const n of ['a', 'b', 'c', 'd', 'e']) r.items.updateObject(item(n));
    await r.clock.advance(100);
    expect(r.trace).toEqual(['0 start a v1 #1', '0 start b v1 #1', '10 start c v1 #1', '10 start d v1 #1', '20 start e v1 #1']);
    expect(r.stats().maxInFlight).toBe(2);
    rec.stop();
  });

  it('should start at most qps reconciles per second after a burst', async () => {
    const r = rig({ work: 1 });
    const rec = newReconciler(r.items, r.reconcile, { qps: 2, burst: 2, timerScheduler: r.clock.scheduler });
    for (const n of ['a', 'b', 'c', 'd', 'e']) r.items.updateObject(item(n));
    await r.clock.advance(5000);
    expect(r.trace).toEqual(['0 start a v1 #1', '0 start b v1 #1', '500 start c v1 #1', '1000 start d v1 #1', '1500 start e v1 #1']);
    rec.stop();
  });

  it('should retry a throwing reconcile with exponential backoff, pass the attempt in, and report each failure', async () => {
    const r = rig({ fail: (_o, ctx) => ctx.attempt < 4 });
    const errors: ReconcileError[] = [];
    const rec = newReconciler(r.items, r.reconcile, {
      backoff: { initialMs: 100, maxMs: 1000, jitter: false },
      timerScheduler: r.clock.scheduler,
    });
    rec.errors$.subscribe((e) => errors.push(e));
    r.items.updateObject(item('a'));
    await r.clock.advance(10_000);
    // Failures end at 10, 120, 330; waits 100, 200, 400.
    expect(r.trace).toEqual(['0 start a v1 #1', '110 start a v1 #2', '320 start a v1 #3', '730 start a v1 #4']);
    expect(errors.map((e) => [e.key, e.attempt, e.retryInMs])).toEqual([
      ['a', 1, 100],
      ['a', 2, 200],
      ['a', 3, 400],
    ]);
    expect(errors[0]!.message).toMatch(/Reconciler\[Items\]: reconcile of a failed \(attempt 1, retrying in 100 ms\): boom a/);
    expect(rec.stats()).toMatchObject({ failed: 3, retries: 3, succeeded: 1, backingOff: 0 });
    rec.stop();
  });

  it('should spread backoff waits with jitter within [delay/2, delay]', async () => {
    const r = rig({ fail: (_o, ctx) => ctx.attempt < 3 });
    const errors: ReconcileError[] = [];
    const rec = newReconciler(r.items, r.reconcile, {
      backoff: { initialMs: 1000, maxMs: 10_000, random: () => 0 },
      timerScheduler: r.clock.scheduler,
    });
    rec.errors$.subscribe((e) => errors.push(e));
    r.items.updateObject(item('a'));
    await r.clock.advance(10_000);
    expect(errors.map((e) => e.retryInMs)).toEqual([500, 1000]);
    rec.stop();
  });

  it('should retry at once, with the attempt count kept, when the object changes during a backoff', async () => {
    const r = rig({ fail: (o) => o.v === 1 });
    const rec = newReconciler(r.items, r.reconcile, { backoff: { initialMs: 1000, jitter: false }, timerScheduler: r.clock.scheduler });
    r.items.updateObject(item('a'));
    await r.clock.advance(50);
    r.items.updateObject(item('a', 2));
    await r.clock.advance(5000);
    expect(r.trace).toEqual(['0 start a v1 #1', '50 start a v2 #2']);
    rec.stop();
  });

  it('should honour requeueAfterMs, and run at once instead when the object changes meanwhile', async () => {
    const r = rig({ result: () => ({ requeueAfterMs: 1000 }) });
    const rec = newReconciler(r.items, r.reconcile, { timerScheduler: r.clock.scheduler });
    r.items.updateObject(item('a'));
    await r.clock.advance(2500);
    r.items.updateObject(item('a', 2));
    await r.clock.advance(1100);
    expect(r.trace).toEqual(['0 start a v1 #1', '1010 start a v1 #1', '2020 start a v1 #1', '2500 start a v2 #1', '3510 start a v2 #1']);
    // A requeue is not pending work: idle() does not wait for it.
    await rec.idle();
    expect(rec.stats()).toMatchObject({ scheduled: 1, requeues: 5 });
    rec.stop();
    expect(rec.stats()).toMatchObject({ scheduled: 0 });
  });

  it('should deliver deletes to onDelete with the last state, and reconcile instead when the key comes back first', async () => {
    const r = rig();
    const deleted: string[] = [];
    const rec = newReconciler(r.items, r.reconcile, {
      concurrency: 1,
      timerScheduler: r.clock.scheduler,
      onDelete: async (old, ctx) => {
        await r.clock.sleep(10);
        deleted.push(`${r.clock.now()} ${ctx.key} v${old.v}`);
      },
    });
    r.items.updateObject(item('a', 7));
    r.items.updateObject(item('b'));
    await r.clock.advance(100);
    r.items.deleteObject('a');
    r.items.deleteObject('b');
    r.items.updateObject(item('b', 2));
    await r.clock.advance(100);
    expect(deleted).toEqual(['110 a v7']);
    expect(r.trace).toEqual(['0 start a v7 #1', '10 start b v1 #1', '110 start b v2 #1']);
    expect(rec.stats()).toMatchObject({ deletes: 1, reconciles: 3 });
    rec.stop();
  });

  it('should drop the queue and abort in-flight work through the signal when stopped, and start nothing after', async () => {
    const r = rig({ result: () => ({ requeueAfterMs: 100 }) });
    const stop = new AbortController();
    const rec = newReconciler(r.items, r.reconcile, { concurrency: 1, timerScheduler: r.clock.scheduler, stop: stop.signal });
    r.items.updateObject(item('a'));
    r.items.updateObject(item('b'));
    await r.clock.advance(5);
    stop.abort();
    expect(r.signals[0]!.aborted).toBe(true);
    r.items.updateObject(item('c'));
    await r.clock.advance(1000);
    await rec.idle();
    expect(r.trace).toEqual(['0 start a v1 #1', '10 aborted a']);
    expect(rec.stats()).toMatchObject({ queued: 0, inFlight: 0, scheduled: 0 });
  });

  it('should act only on keys the gate owns, pick up keys it gains, and abort work on keys it loses', async () => {
    const r = rig({ work: 50 });
    const owned = new Set(['a']);
    const changes$ = new Subject<void>();
    const gate: Gate = { owns: (k) => owned.has(k), changes$ };
    const rec = newReconciler(r.items, r.reconcile, { timerScheduler: r.clock.scheduler, gate });
    r.items.updateObject(item('a'));
    r.items.updateObject(item('b'));
    await r.clock.advance(20);
    owned.clear();
    owned.add('b');
    changes$.next();
    await r.clock.advance(200);
    expect(r.trace).toEqual(['0 start a v1 #1', '20 start b v1 #1', '50 aborted a']);
    expect(rec.stats().notOwned).toBeGreaterThan(0);
    rec.stop();
  });

  it('should resolve idle() only once nothing is queued, running or backing off', async () => {
    const r = rig({ fail: (_o, ctx) => ctx.attempt < 2 });
    const rec = newReconciler(r.items, r.reconcile, { backoff: { initialMs: 100, jitter: false }, timerScheduler: r.clock.scheduler });
    r.items.updateObject(item('a'));
    let idle = false;
    void rec.idle().then(() => (idle = true));
    await r.clock.advance(50); // backing off after the failure at 10
    expect(idle).toBe(false);
    await r.clock.advance(65); // the retry started at 110 is running
    expect(idle).toBe(false);
    await r.clock.advance(100);
    expect(idle).toBe(true);
    rec.stop();
  });

  it('should refuse bad options naming the collection and the value', () => {
    const items = newStaticCollection<Item>([], { name: 'Items' });
    const noop = async (): Promise<void> => {};
    expect(() => newReconciler(items, noop, { concurrency: 0 })).toThrow(UsageError);
    expect(() => newReconciler(items, noop, { qps: -1 })).toThrow(/newReconciler\(Items\): qps must be a positive number, got -1/);
    expect(() => newReconciler(items, noop, { burst: 1.5 })).toThrow(/burst must be a positive integer, got 1.5/);
    expect(() => newReconciler(items, 'x' as unknown as typeof noop)).toThrow(/newReconciler\(Items\): reconcile must be a function/);
  });
});
