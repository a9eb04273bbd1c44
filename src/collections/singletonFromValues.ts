// singletonFromValues: any RxJS Observable of values becomes a singleton source.
import { asapScheduler, type Observable, type Subscription } from 'rxjs';
import { TransformError } from '../core/errors.js';
import { mutate } from '../core/transaction.js';
import type { Singleton } from '../core/types.js';
import { StaticSingletonNode } from './newStatic.js';
import { SingletonView } from './singletonView.js';
import type { ObservableSourceOptions } from './collectionFromEvents.js';

/**
 * Turns an Observable of values into a singleton (undefined clears it). Values are applied on
 * `scheduler` (default `asapScheduler`; within one flush the last value wins). Synced at the first value.
 * An error from the Observable is reported on `errors$` of `asCollection()`; the last value stays.
 * @example const config = singletonFromValues(config$);
 */
export function singletonFromValues<T>(values$: Observable<T | undefined>, opts?: ObservableSourceOptions): Singleton<T> {
  const node = new StaticSingletonNode<T>(undefined, { ...opts, startSynced: false });
  const scheduler = opts?.scheduler ?? asapScheduler;
  let latest: { v: T | undefined } | undefined;
  let action: Subscription | undefined;
  const flush = (): void => {
    action = undefined;
    const pending = latest;
    latest = undefined;
    if (pending === undefined) return;
    mutate(() => {
      node.set(pending.v);
      node.markSynced();
    });
  };
  const subscription = values$.subscribe({
    next: (v) => {
      if (node.disposed) return;
      latest = { v };
      action ??= scheduler.schedule(flush);
    },
    error: (e: unknown) => node.reportError(new TransformError(node.name, undefined, e, 'source Observable errored')),
  });
  const stop = (): void => {
    subscription.unsubscribe();
    action?.unsubscribe();
  };
  if (opts?.stop?.aborted) stop();
  else opts?.stop?.addEventListener('abort', stop, { once: true });
  return new SingletonView<T>(node);
}
