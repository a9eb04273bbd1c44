// Virtual time for code that awaits Promises: timers run on a VirtualTimeScheduler, and between timers the
// microtask and immediate queues drain, so async work scheduled on virtual time completes in order.
import { VirtualTimeScheduler } from 'rxjs';

/** Lets pending promise chains settle (a macrotask turn drains every microtask before it). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A virtual clock: `advance(ms)` runs every timer due by then, in time order, settling promises between them. */
export class VirtualClock {
  readonly scheduler = new VirtualTimeScheduler();

  now(): number {
    return this.scheduler.now();
  }

  /** A promise that resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.scheduler.schedule(() => resolve(), ms));
  }

  async advance(ms: number): Promise<void> {
    const target = this.scheduler.now() + ms;
    for (;;) {
      await settle();
      const next = this.scheduler.actions.at(0);
      if (next === undefined || next.delay > target) break;
      this.scheduler.maxFrames = next.delay;
      this.scheduler.flush();
    }
    this.scheduler.frame = target;
    await settle();
  }
}
