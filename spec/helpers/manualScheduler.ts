// A scheduler whose clock moves only when a test says so: timeouts, backoff waits and health timers in virtual time.
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

interface Entry {
  readonly at: number;
  readonly seq: number;
  readonly delay: number;
  readonly run: () => void;
  readonly action: Subscription;
}

/**
 * A `SchedulerLike` with a virtual clock. Work runs only inside `advance`, in time order, so a test can let a
 * 60 s request timeout fire without waiting 60 s, and read the delays asked for (`pending`) before it does.
 */
export class ManualScheduler implements SchedulerLike {
  private time = 0;
  private seq = 0;
  private queue: Entry[] = [];

  now(): number {
    return this.time;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    const action = new Subscription(() => {
      this.queue = this.queue.filter((e) => e.action !== action);
    }) as Subscription & SchedulerAction<T>;
    action.schedule = (next?: T, nextDelay = 0) => this.schedule(work, nextDelay, next);
    this.push(delay, () => work.call(action, state), action);
    return action;
  }

  /** The delays (as asked) of the work not yet run, earliest first. */
  pending(): number[] {
    return this.sorted().map((e) => e.delay);
  }

  /** Moves the clock by `ms`, running every piece of work that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (let next = this.sorted().at(0); next !== undefined && next.at <= end; next = this.sorted().at(0)) {
      this.queue = this.queue.filter((e) => e !== next);
      this.time = next.at;
      next.run();
    }
    this.time = end;
  }

  /** Moves the clock to the earliest pending work and runs it (and whatever else falls due then). */
  advanceToNext(): void {
    const next = this.sorted().at(0);
    if (next === undefined) throw new Error('ManualScheduler: nothing is scheduled');
    this.advance(next.at - this.time);
  }

  private push(delay: number, run: () => void, action: Subscription): void {
    this.queue.push({ at: this.time + delay, seq: this.seq++, delay, run, action });
  }

  private sorted(): Entry[] {
    return [...this.queue].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}
