// batches and changes: from a collection (or an Observable of collections) to its event stream.
import { map, mergeMap, switchMap, type OperatorFunction } from 'rxjs';
import type { Event } from '../core/event.js';
import type { Collection } from '../core/types.js';
import { internal } from '../engine/internalCollection.js';

/** One event of a collection with the key it is under, for per-key pipelines (`groupBy(c => c.key)`). */
export interface KeyedChange<T> {
  /** The key the collection files the object under. */
  readonly key: string;
  /** The change itself. */
  readonly event: Event<T>;
}

/**
 * The committed batches of the latest collection the source emitted: its state as one batch of adds, then
 * each batch (`events$`); switches when a new collection arrives.
 * @example collections$.pipe(batches()).subscribe((b) => console.log(b.length));
 */
export function batches<T>(): OperatorFunction<Collection<T>, readonly Event<T>[]> {
  return switchMap((c: Collection<T>) => c.events$);
}

/**
 * The events of the latest collection the source emitted, one at a time, each with its key.
 * @example of(pods).pipe(changes(), groupBy((c) => c.key), mergeMap((g) => g.pipe(debounceTime(100))))
 */
export function changes<T>(): OperatorFunction<Collection<T>, KeyedChange<T>> {
  return switchMap((c: Collection<T>) => {
    const keyOf = internal(c, 'changes').keyOf;
    return c.events$.pipe(
      mergeMap((batch) => batch),
      map((event) => ({ key: keyOf(event.new ?? event.old), event })),
    );
  });
}
