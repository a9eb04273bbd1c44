// An event tracker for tests: records "type/key" strings and checks them, failing on anything extra.
import type { Event } from '../core/event.js';
import { latest } from '../core/event.js';
import { keyOf } from '../core/keyOf.js';
import type { Collection, Registration } from '../core/types.js';

/** Thrown when a tracker's expectation does not hold. */
export class TrackerMismatchError extends Error {
  /** Always `'TrackerMismatchError'`. */
  override readonly name = 'TrackerMismatchError';
}

/**
 * Records events as `"<type>/<key>"` (`add/ns/name`) and, per batch, as a comma-joined string.
 * `expectOrdered`/`expectUnordered` consume what was recorded and fail on missing or extra events.
 */
export class EventTracker<T> {
  private recorded: string[] = [];
  private batchesRecorded: string[] = [];
  /** Every event ever received, as objects (never consumed). */
  readonly all: Event<T>[] = [];

  constructor(private readonly keyFn: (o: T) => string = keyOf as (o: T) => string) {}

  /** A handler for `register`. */
  readonly handler = (e: Event<T>): void => {
    this.all.push(e);
    this.recorded.push(`${e.type}/${this.keyFn(latest(e))}`);
  };

  /** A handler for `registerBatch`: records each event and the batch. */
  readonly batchHandler = (batch: readonly Event<T>[]): void => {
    for (const e of batch) this.handler(e);
    this.batchesRecorded.push(batch.map((e) => `${e.type}/${this.keyFn(latest(e))}`).join(','));
  };

  /** Consumes and returns the events recorded so far. */
  take(): string[] {
    const out = this.recorded;
    this.recorded = [];
    return out;
  }

  /** Consumes and returns the batches recorded so far (each a comma-joined list). */
  takeBatches(): string[] {
    const out = this.batchesRecorded;
    this.batchesRecorded = [];
    return out;
  }

  /** Exactly these events, in this order, and nothing else. */
  expectOrdered(...expected: string[]): void {
    const got = this.take();
    if (got.length !== expected.length || got.some((g, i) => g !== expected[i])) {
      throw new TrackerMismatchError(`expected events [${expected.join(', ')}] in order, got [${got.join(', ')}]`);
    }
  }

  /** Exactly these events, in any order, and nothing else. */
  expectUnordered(...expected: string[]): void {
    const got = this.take();
    const a = [...got].sort();
    const b = [...expected].sort();
    if (a.length !== b.length || a.some((g, i) => g !== b[i])) {
      throw new TrackerMismatchError(`expected events [${b.join(', ')}] in any order, got [${a.join(', ')}]`);
    }
  }

  /** Nothing was recorded since the last check. */
  expectEmpty(): void {
    this.expectOrdered();
  }
}

/**
 * Registers a tracker on a collection (with replay); returns the tracker and its registration.
 * Events are recorded under the collection's own key (its `key` option, else `keyOf`) unless `key` is given.
 * @example
 * const t = trackEvents(pods);
 * pods.updateObject(pod('a'));
 * t.expectOrdered('add/ns/a');
 */
export function trackEvents<T>(
  c: Collection<T>,
  opts?: { batches?: boolean; runExistingState?: boolean; key?: (o: T) => string },
): EventTracker<T> & {
  /** The tracker's registration on `c`: unregister it to stop recording. */
  registration: Registration;
} {
  // Collections built by rxkrt carry their key function; use it so custom-keyed collections track correctly.
  const own = (c as Partial<{ keyOf: (o: unknown) => string }>).keyOf;
  const t = new EventTracker<T>(opts?.key ?? (typeof own === 'function' ? (o: T) => own(o) : undefined));
  const registration =
    opts?.batches === true || opts?.runExistingState === false
      ? c.registerBatch(t.batchHandler, opts.runExistingState ?? true)
      : c.register(t.handler);
  return Object.assign(t, { registration });
}
