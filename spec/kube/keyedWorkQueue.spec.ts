import { describe, it, expect } from '@jest/globals';
import { UsageError } from '../../src/index.js';
import { KeyedWorkQueue, type WorkFailure, type KeyedWorkQueueOptions } from '../../src/kube/keyedWorkQueue.js';
import { VirtualClock } from '../helpers/virtualClock.js';

// The queue's hooks, which the reconciler does not use: needsWork, retryable, maxAttempts, minRetryDelayMs.

function rig(fail: (key: string, attempt: number) => unknown, opts: KeyedWorkQueueOptions = {}) {
  const clock = new VirtualClock();
  const trace: string[] = [];
  const failures: WorkFailure[] = [];
  const q = new KeyedWorkQueue(
    'test',
    async (key, ctx) => {
      trace.push(`${clock.now()} ${key} #${ctx.attempt}`);
      await clock.sleep(1);
      const error = fail(key, ctx.attempt);
      // The queue must cope with anything thrown, not only Errors.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (error !== undefined) throw error;
    },
    { timerScheduler: clock.scheduler, backoff: { initialMs: 100, jitter: false }, onFailure: (f) => failures.push(f), ...opts },
  );
  return { clock, trace, failures, q };
}

describe('KeyedWorkQueue', () => {
  it('should settle a key that needs no work at once, without a run or a token', async () => {
    const needed = new Set(['b']);
    const r = rig(() => undefined, { qps: 1, burst: 1, needsWork: (k) => needed.has(k) });
    r.q.add('a');
    r.q.add('b');
    await r.clock.advance(10);
    await r.q.idle();
    expect(r.trace).toEqual(['0 b #1']);
    expect(r.q.stats()).toMatchObject({ queued: 0, succeeded: 1 });
  });

  it('should give up after maxAttempts, reporting the last failure with no retry', async () => {
    const r = rig(() => new Error('no'), { maxAttempts: 3 });
    r.q.add('a');
    await r.clock.advance(1000);
    expect(r.trace).toEqual(['0 a #1', '101 a #2', '302 a #3']);
    expect(r.failures.map((f) => [f.attempt, f.retryInMs])).toEqual([
      [1, 100],
      [2, 200],
      [3, undefined],
    ]);
    expect(r.q.stats()).toMatchObject({ givenUp: 1, retries: 2, failed: 3, backingOff: 0 });
    // A later change starts afresh.
    r.q.add('a');
    await r.clock.advance(1);
    expect(r.trace.at(-1)).toBe('1000 a #1');
    r.q.stop();
  });

  it('should give up at once on a failure that is not retryable', async () => {
    const r = rig(() => 'fatal', { retryable: (e) => e !== 'fatal' });
    r.q.add('a');
    await r.clock.advance(1000);
    expect(r.trace).toEqual(['0 a #1']);
    expect(r.failures).toEqual([{ key: 'a', error: 'fatal', attempt: 1, retryInMs: undefined }]);
  });

  it('should wait at least minRetryDelayMs (a Retry-After) before a retry', async () => {
    const r = rig((_k, attempt) => (attempt === 1 ? new Error('busy') : undefined), { minRetryDelayMs: () => 5000 });
    r.q.add('a');
    await r.clock.advance(10_000);
    expect(r.trace).toEqual(['0 a #1', '5001 a #2']);
  });

  it('should forget a dropped key: its queued run and its pending retry', async () => {
    const r = rig((k, attempt) => (k === 'a' && attempt === 1 ? new Error('x') : undefined), { concurrency: 1 });
    r.q.add('a');
    r.q.add('b');
    r.q.add('c');
    r.q.drop('c');
    await r.clock.advance(5);
    expect(r.q.stats().backingOff).toBe(1);
    r.q.drop('a');
    await r.clock.advance(1000);
    expect(r.trace).toEqual(['0 a #1', '1 b #1']);
    expect(r.q.stats()).toMatchObject({ backingOff: 0, queued: 0 });
  });

  it('should refuse limits under which it could never run, naming its owner and the value', () => {
    const work = async (): Promise<void> => {};
    expect(() => new KeyedWorkQueue('owner', work, { concurrency: 0 })).toThrow(UsageError);
    expect(() => new KeyedWorkQueue('owner', work, { maxAttempts: 0.5 })).toThrow(/owner: maxAttempts must be a positive integer, got 0.5/);
  });
});
