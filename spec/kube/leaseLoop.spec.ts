import { describe, it, expect } from '@jest/globals';
import { VirtualTimeScheduler } from 'rxjs';
import { LeaseLoop, leaseRequestOptions } from '../../src/kube/leaseLoop.js';
import { advanceTo } from '../helpers/virtualClock.js';

/** A round that settles when the test says so, recording when it started (virtual ms). */
function controlledRounds(clock: VirtualTimeScheduler) {
  const starts: number[] = [];
  let settle: (() => void) | undefined;
  return {
    starts,
    round: (): Promise<void> => {
      starts.push(clock.now());
      return new Promise<void>((resolve) => (settle = resolve));
    },
    finish: async (): Promise<void> => {
      settle?.();
      settle = undefined;
      // Lets the loop's `finally` schedule the next round.
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

describe('LeaseLoop', () => {
  it('should run one round at a time, each next one a period after the last settled', async () => {
    const clock = new VirtualTimeScheduler();
    const r = controlledRounds(clock);
    const loop = new LeaseLoop(clock, 500, r.round);
    loop.start();
    expect(r.starts).toEqual([0]);
    // A slow round: nothing else starts while it runs, however much time passes.
    advanceTo(clock, 1200);
    expect(r.starts).toEqual([0]);
    await r.finish();
    advanceTo(clock, 1699);
    expect(r.starts).toEqual([0]);
    advanceTo(clock, 1700);
    expect(r.starts).toEqual([0, 1700]);
  });

  it('should start no round after halt, and let idle wait for the round in flight', async () => {
    const clock = new VirtualTimeScheduler();
    const r = controlledRounds(clock);
    const loop = new LeaseLoop(clock, 100, r.round);
    loop.start();
    let idle = false;
    loop.halt();
    const waiting = loop.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    await r.finish();
    await waiting;
    expect(idle).toBe(true);
    advanceTo(clock, 10_000);
    expect(r.starts).toEqual([0]);
  });

  it('should carry on after a round that failed', async () => {
    const clock = new VirtualTimeScheduler();
    let n = 0;
    const loop = new LeaseLoop(clock, 100, () => (++n === 1 ? Promise.reject(new Error('lost')) : Promise.resolve()));
    loop.start();
    await loop.idle().catch(() => undefined);
    await Promise.resolve();
    advanceTo(clock, 100);
    expect(n).toBe(2);
    loop.halt();
  });

  it('should time requests out at the renew deadline unless the caller set a timeout', () => {
    const clock = new VirtualTimeScheduler();
    const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 };
    expect(leaseRequestOptions(undefined, timing, clock)).toEqual({ timeoutMs: 10_000, scheduler: clock });
    expect(leaseRequestOptions(3000, timing, clock)).toEqual({ timeoutMs: 3000, scheduler: clock });
  });
});
