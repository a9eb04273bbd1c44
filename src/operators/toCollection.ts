// toCollection: an Observable of event batches, single events or whole snapshots becomes a collection.
import { Observable, type OperatorFunction } from 'rxjs';
import type { Event } from '../core/event.js';
import type { Collection } from '../core/types.js';
import { TransformError } from '../core/errors.js';
import { collectionFromEvents, type ObservableSourceOptions } from '../collections/collectionFromEvents.js';
import { newStaticCollection } from '../collections/newStaticCollection.js';
import { internal } from '../engine/internalCollection.js';
import { batch } from '../engine/transaction.js';
import { subscriptionLifetime } from './lifetime.js';

/** Options of `toCollection`. */
export interface ToCollectionOptions<T = unknown> extends ObservableSourceOptions<T> {
  /** Each emission is the whole content (a list of objects), not events: the collection applies the difference. */
  snapshots?: boolean;
}

/**
 * Turns an Observable into a collection, emitted once on subscribe and alive until unsubscribed (or until
 * `stop`). Events (single or in batches) are applied as `collectionFromEvents` applies them, buffered and
 * flushed on `scheduler`; with `snapshots: true` each emitted list replaces the content in one transaction,
 * as its difference. The collection syncs at the first emission or when the source completes; a source
 * error goes to the collection's `errors$` and the last state stays. The output never completes by itself,
 * since completing would end the collection's lifetime.
 * @example const pods = snapshots$.pipe(toCollection<Pod>({ snapshots: true, name: 'Pods' }));
 */
export function toCollection<T>(opts: ToCollectionOptions<NoInfer<T>> & { snapshots: true }): OperatorFunction<readonly T[], Collection<T>>;
export function toCollection<T>(
  opts?: ToCollectionOptions<NoInfer<T>> & { snapshots?: false },
): OperatorFunction<Event<T> | readonly Event<T>[], Collection<T>>;
export function toCollection<T>(opts?: ToCollectionOptions<T>): OperatorFunction<never, Collection<T>> {
  return (source: Observable<unknown>) =>
    new Observable<Collection<T>>((subscriber) => {
      const life = subscriptionLifetime(opts?.stop);
      const withLife = { ...opts, stop: life.signal };
      if (opts?.snapshots !== true) {
        subscriber.next(collectionFromEvents(source as Observable<Event<T> | readonly Event<T>[]>, withLife));
        return life.end;
      }
      const { snapshots: _, ...collectionOpts } = withLife;
      const c = newStaticCollection<T>([], { ...collectionOpts, synced: false });
      subscriber.next(c);
      const fromSource = (source as Observable<readonly T[]>).subscribe({
        next: (list) => {
          if (!Array.isArray(list)) {
            internal(c).reportError(
              new TransformError(c.name, undefined, new TypeError(`a snapshot must be an array, got ${typeof list}`)),
            );
            return;
          }
          // One transaction: the first snapshot arrives already synced.
          batch(() => {
            c.reset(list);
            if (!c.hasSynced()) c.markSynced();
          });
        },
        error: (e: unknown) => internal(c).reportError(new TransformError(c.name, undefined, e, 'source Observable errored')),
        complete: () => {
          if (!c.hasSynced()) c.markSynced();
        },
      });
      return () => {
        fromSource.unsubscribe();
        life.end();
      };
    });
}
