// singletonFromValues: any RxJS Observable of values becomes a singleton source.
import { asapScheduler, type Observable, type Subscription } from 'rxjs';
import { TransformError } from '../core/errors.js';
import { mutate } from '../engine/transaction.js';
import { onAbort } from '../engine/onAbort.js';
import type { Singleton } from '../core/types.js';
import { StaticSingletonNode } from './newStatic.js';
import { SingletonView } from './singleton.js';
import type { ObservableSourceOptions } from './collectionFromEvents.js';
import { requireObservable } from '../engine/internalCollection.js';

/**
 * Turns an Observable of values into a singleton (undefined clears it). Values are applied on
 * `scheduler` (default `asapScheduler`; within one flush the last value wins). Synced at the first value,
 * or on completion when none came.
 * An error from the Observable is reported on `errors$` of `asCollection()`; the last value stays.
 * @example const config = singletonFromValues(config$);
 */
export function singletonFromValues<T>(values$: Observable<T | undefined>, opts?: ObservableSourceOptions<NoInfer<T>>): Singleton<T> {
  requireObservable(values$, 'singletonFromValues');
  const node = new StaticSingletonNode<T>(undefined, { ...opts, startSynced: false });
  const scheduler = opts?.scheduler ?? asapScheduler;
  let latest: { v: T | undefined } | undefined;
  let completed = false;
  let action: Subscription | undefined;
  const flush = (): void => {
    action = undefined;
    const pending = latest;
    latest = undefined;
    if (pending === undefined && !completed) return;
    mutate(() => {
      if (pending !== undefined) node.set(pending.v);
      node.markSynced();
    });
  };
  // A synchronous scheduler (queueScheduler) runs `flush` inside `schedule`: its spent action must not be
  // kept, or every later value would look already scheduled and never be applied.
  const scheduleFlush = (): void => {
    if (action !== undefined) return;
    let ran = false as boolean; // `as`: the scheduled action may set it before schedule() returns
    const a = scheduler.schedule(() => {
      ran = true;
      flush();
    });
    if (!ran) action = a;
  };
  // Already stopped: never subscribe, so a cold source is not even started.
  if (node.disposed) return new SingletonView<T>(node);
  const subscription = values$.subscribe({
    next: (v) => {
      if (node.disposed) return;
      latest = { v };
      scheduleFlush();
    },
    error: (e: unknown) => node.reportError(new TransformError(node.name, undefined, e, 'source Observable errored')),
    // A source that completes without a value will never send one: its value is known (undefined), so it syncs.
    complete: () => {
      if (node.disposed) return;
      completed = true;
      scheduleFlush();
    },
  });
  const stop = (): void => {
    subscription.unsubscribe();
    action?.unsubscribe();
  };
  if (opts?.stop !== undefined) onAbort(opts.stop, stop);
  return new SingletonView<T>(node);
}
