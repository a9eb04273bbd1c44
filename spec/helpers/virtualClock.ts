// Virtual time in specs: a VirtualTimeScheduler driven step by step between rounds of real I/O (advanceTo, Timeline),
// or a VirtualClock for code that awaits Promises (timers run in time order, promise chains settle between them).
import { VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

/** Runs the work due up to `frame` (in time order) and leaves the clock at `frame`. */
export function advanceTo(scheduler: VirtualTimeScheduler, frame: number): void {
  scheduler.maxFrames = frame;
  scheduler.flush();
  scheduler.frame = frame;
}

/** The virtual times of the work waiting to run, earliest first. */
export function pendingFrames(scheduler: VirtualTimeScheduler): number[] {
  return scheduler.actions.map((a) => a.delay);
}

/** One observation, at the virtual time it was made. */
export interface Frame {
  readonly frame: number;
  readonly value: string;
}

/** Records observations stamped with the scheduler's clock, and reads them back as a marble diagram. */
export class Timeline {
  readonly frames: Frame[] = [];

  constructor(private readonly scheduler: VirtualTimeScheduler) {}

  record(value: string): void {
    this.frames.push({ frame: this.scheduler.now(), value });
  }

  /** The frames a marble diagram (run-mode syntax, `100ms` gaps) stands for, to compare with `frames`. */
  static expected(marbles: string, values: Record<string, string>): Frame[] {
    // One character is one frame (1 ms), as inside `TestScheduler.run`.
    const factor = TestScheduler.frameTimeFactor;
    TestScheduler.frameTimeFactor = 1;
    try {
      return TestScheduler.parseMarbles(marbles, values, undefined, false, true).map((m) => ({
        frame: m.frame,
        value: (m.notification as { value?: string }).value ?? `<${m.notification.kind}>`,
      }));
    } finally {
      TestScheduler.frameTimeFactor = factor;
    }
  }
}

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
