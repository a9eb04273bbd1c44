// Driving a VirtualTimeScheduler (a TestScheduler outside `run`) step by step, between rounds of real I/O.
import type { VirtualTimeScheduler } from 'rxjs';
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
