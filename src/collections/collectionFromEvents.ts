// collectionFromEvents: any RxJS Observable of events becomes a source collection.
import { asapScheduler, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { Event } from '../core/event.js';
import { describeValue, TransformError } from '../core/errors.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import type { Collection, CollectionOptions } from '../core/types.js';
import { SourceNode } from '../engine/sourceNode.js';
import { requireObservable } from '../engine/internalCollection.js';

/** Options of Observable-fed sources. */
export interface ObservableSourceOptions<T = unknown> extends CollectionOptions<T> {
  /** When buffered emissions are applied (one transaction per flush). Default `asapScheduler`. */
  scheduler?: SchedulerLike;
}

class EventsSource<T> extends SourceNode<T> {
  private buffer: Event<T>[] = [];
  private flushAction: Subscription | undefined;
  private sawFirst = false;
  private syncPending = false;
  private readonly subscription: Subscription | undefined; // still undefined if start() disposes at once
  private readonly scheduler: SchedulerLike;

  constructor(events$: Observable<Event<T> | readonly Event<T>[]>, opts: ObservableSourceOptions<never> | undefined) {
    super(opts, 'FromEvents', false);
    this.scheduler = opts?.scheduler ?? asapScheduler;
    this.start(opts);
    // Already stopped: never subscribe, so a cold source (a watch, a request) is not even started.
    this.subscription = this.disposed
      ? Subscription.EMPTY
      : events$.subscribe({
          next: (v) => this.enqueue(v),
          error: (e: unknown) => {
            // The graph stays up with the last state; the error is a value on errors$.
            this.reportError(new TransformError(this.name, undefined, e, 'source Observable errored'));
          },
          complete: () => {
            this.syncPending = true;
            this.scheduleFlush();
          },
        });
    if (this.disposed) this.subscription.unsubscribe();
  }

  private enqueue(v: Event<T> | readonly Event<T>[]): void {
    if (this.disposed) return;
    if (Array.isArray(v)) for (const e of v as readonly Event<T>[]) this.buffer.push(e);
    else this.buffer.push(v as Event<T>);
    if (!this.sawFirst) {
      this.sawFirst = true;
      this.syncPending = true;
    }
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushAction !== undefined || this.disposed) return;
    let ran = false as boolean; // `as`: the scheduled action may set it before schedule() returns
    const action = this.scheduler.schedule(() => {
      ran = true;
      this.flushAction = undefined;
      this.applyBuffered();
    });
    // A synchronous scheduler (queueScheduler) has already flushed: keeping its spent action would make
    // every later emission look already scheduled, and nothing would ever be applied again.
    if (!ran) this.flushAction = action;
  }

  /** Applies everything that arrived since the last flush as one transaction. */
  private applyBuffered(): void {
    const events = this.buffer;
    this.buffer = [];
    const sync = this.syncPending;
    this.syncPending = false;
    mutate(() => {
      for (const e of events) this.applyOne(e);
      if (sync) this.markSynced();
    });
  }

  // `unknown`: events come from the user's Observable, which plain JavaScript can feed any value.
  private applyOne(input: unknown): void {
    try {
      if (input === null || typeof input !== 'object') throw new TypeError(`expected an Event, got ${describeValue(input)}`);
      const e = input as { readonly type?: unknown; readonly old?: T; readonly new?: T };
      if (e.type === 'add' || e.type === 'update') {
        if (e.new === undefined) throw new TypeError(`an ${e.type} event needs "new": ${describeValue(e)}`);
        const v = freezeInput(e.new);
        this.write(this.keyOf(v), v, false);
      } else if (e.type === 'delete') {
        const gone = e.old ?? e.new;
        if (gone === undefined) throw new TypeError(`a delete event needs "old": ${describeValue(e)}`);
        this.write(this.keyOf(gone), undefined, false);
      } else {
        throw new TypeError(`unknown event type in ${describeValue(e)}`);
      }
    } catch (err) {
      // One bad event is reported and skipped; the rest of the burst still applies.
      this.reportError(new TransformError(this.name, undefined, err, 'bad event from source Observable'));
    }
  }

  protected override onDispose(): void {
    super.onDispose();
    this.subscription?.unsubscribe();
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    this.buffer = [];
  }
}

/**
 * Turns an Observable of events (single events or arrays of them) into a source collection. Emissions
 * are buffered and applied on `scheduler` (default `asapScheduler`), so a burst is one transaction and
 * marble tests run in virtual time. Synced at the first emission (an empty array counts) or on completion.
 * An error from the Observable is reported on `errors$`; the last state stays.
 * @example const pods = collectionFromEvents<Pod>(podEvents$);
 */
export function collectionFromEvents<T>(
  events$: Observable<Event<T> | readonly Event<T>[]>,
  opts?: ObservableSourceOptions<NoInfer<T>>,
): Collection<T> {
  requireObservable(events$, 'collectionFromEvents');
  return new EventsSource<T>(events$, opts);
}
