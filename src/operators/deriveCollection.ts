// deriveCollection and deriveMany: newCollection and newManyCollection over each collection an Observable emits.
import { Observable, type OperatorFunction } from 'rxjs';
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { requireTransform } from '../engine/internalCollection.js';
import { newCollection } from '../collections/newCollection.js';
import { newManyCollection } from '../collections/newManyCollection.js';
import { subscriptionLifetime } from './lifetime.js';

/**
 * Builds `build(collection, stop)` for each collection the source emits, stopping the one built before (the
 * source switched away from its input), and the last one when unsubscribed. Source errors are passed on;
 * completion is not, since it would end the last collection's lifetime while someone still reads it.
 */
function switchDerived<I, O>(
  opts: CollectionOptions<O> | undefined,
  build: (c: Collection<I>, opts: CollectionOptions<O>) => Collection<O>,
): OperatorFunction<Collection<I>, Collection<O>> {
  return (source) =>
    new Observable<Collection<O>>((subscriber) => {
      let current: { end: () => void } | undefined;
      const fromSource = source.subscribe({
        next: (c) => {
          current?.end();
          const life = subscriptionLifetime(opts?.stop);
          current = life;
          subscriber.next(build(c, { ...opts, stop: life.signal }));
        },
        error: (e: unknown) => subscriber.error(e),
      });
      return () => {
        fromSource.unsubscribe();
        current?.end();
      };
    });
}

/**
 * `newCollection(c, transform, opts)` for each collection `c` the source emits; the previous derived
 * collection is stopped when the next arrives, the last when unsubscribed.
 * @example const workloads$ = pods$.pipe(deriveCollection((ctx, p) => workloadOf(ctx, p), { name: 'Workloads' }));
 */
export function deriveCollection<I, O>(
  transform: (ctx: HandlerContext, input: I) => O | undefined | null,
  opts?: CollectionOptions<O>,
): OperatorFunction<Collection<I>, Collection<O>> {
  requireTransform(transform, 'deriveCollection');
  return switchDerived<I, O>(opts, (c, o) => newCollection(c, transform, o));
}

/**
 * `newManyCollection(c, transform, opts)` for each collection `c` the source emits, as `deriveCollection`.
 * @example const ports$ = services$.pipe(deriveMany((ctx, s) => s.spec.ports));
 */
export function deriveMany<I, O>(
  transform: (ctx: HandlerContext, input: I) => readonly O[] | undefined | null,
  opts?: CollectionOptions<O>,
): OperatorFunction<Collection<I>, Collection<O>> {
  requireTransform(transform, 'deriveMany');
  return switchDerived<I, O>(opts, (c, o) => newManyCollection(c, transform, o));
}
