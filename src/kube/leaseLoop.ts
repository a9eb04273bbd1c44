// The retry loop of a Lease client (leader elector, shard ring): one round at a time, each next one a retry
// period after the last one ended, however long that took.
import type { SchedulerLike, Subscription } from 'rxjs';
import type { RequestOptions } from './request.js';
import type { LeaseTiming } from './leaseRecord.js';

/** @internal Runs `round` now and then a retry period after each round settles, until halted. */
export class LeaseLoop {
  private next: Subscription | undefined;
  private running: Promise<void> = Promise.resolve();
  private halted = false;

  constructor(
    private readonly timers: SchedulerLike,
    private readonly periodMs: number,
    private readonly round: () => Promise<void>,
  ) {}

  /** Runs the first round. */
  start(): void {
    this.tick();
  }

  /** Starts no round after this one; the round in flight, if any, runs to its end (see `idle`). */
  halt(): void {
    this.halted = true;
    this.next?.unsubscribe();
    this.next = undefined;
  }

  /** Settles when the round in flight has. */
  idle(): Promise<void> {
    return this.running;
  }

  private tick(): void {
    this.next = undefined;
    if (this.halted) return;
    this.running = this.round().finally(() => {
      if (!this.halted) this.next = this.timers.schedule(() => this.tick(), this.periodMs);
    });
  }
}

/**
 * @internal The options of every Lease request: the caller's timeout, else the renew deadline (an answer
 * later than that is of no use: the holder has stepped down by then), on the loop's scheduler.
 */
export function leaseRequestOptions(requestTimeoutMs: number | undefined, timing: LeaseTiming, timers: SchedulerLike): RequestOptions {
  return { timeoutMs: requestTimeoutMs ?? timing.renewDeadlineMs, scheduler: timers };
}
