// Live queries: fetch outside any transform, as an Observable that emits when a change touches its result.
import { Observable, map } from 'rxjs';
import type { Collection, HandlerContext } from '../core/types.js';
import { equals as defaultEquals } from '../core/equals.js';
import { internal, requireTransform } from '../engine/internalCollection.js';
import { fetch, fetchOne } from '../fetch/fetch.js';
import type { FetchFilter } from '../fetch/filters.js';
import { newSingleton } from './newSingleton.js';

/** Collections hand out each object as is until it changes, so equal results hold the very same objects. */
function sameElements<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Runs `run` as a singleton of its own while subscribed, so the engine's reverse index decides which changes
 * can touch the result; emits what the singleton's `value$` emits, and errors when the run fails.
 */
function live<R>(
  call: string,
  c: Collection<unknown> | undefined,
  run: Parameters<typeof newSingleton<R>>[0],
  equals: (a: R, b: R) => boolean,
): Observable<R | undefined> {
  const name = c === undefined ? call : `${call}(${internal(c, call).name})`;
  return new Observable<R | undefined>((subscriber) => {
    const stop = new AbortController();
    const result = newSingleton<R>(run, { name, stop: stop.signal, equals });
    const errors = result.asCollection().errors$.subscribe((e) => subscriber.error(e));
    const values = result.value$.subscribe((v) => subscriber.next(v));
    return () => {
      values.unsubscribe();
      errors.unsubscribe();
      stop.abort();
    };
  });
}

/**
 * A live `fetch`: the objects of `c` that pass `filters` now, then the list again after each transaction that
 * changed it (and only then: a change elsewhere in `c` is not even looked at when the filters index it).
 * Emitted after the commit, so a list never mixes before and after. Errors when the fetch fails.
 * @example query$(pods, filterLabel({ app: 'web' })).subscribe((ps) => console.log(ps.length));
 */
export function query$<T>(c: Collection<T>, ...filters: FetchFilter<NoInfer<T>>[]): Observable<T[]> {
  internal(c, 'query$');
  // A copy per emission: the fetched list is the engine's, and subscribers may sort or splice what they get.
  return live<readonly T[]>('query$', c, (ctx) => fetch(ctx, c, ...filters), sameElements).pipe(
    map((v) => (v === undefined ? [] : [...v])),
  );
}

/**
 * A live `fetchOne`: the one object that passes `filters` (undefined when none), then each change to it.
 * Errors, as `fetchOne` throws, when more than one object passes.
 * @example queryOne$(configMaps, filterKey('default/settings')).subscribe(apply);
 */
export function queryOne$<T>(c: Collection<T>, ...filters: FetchFilter<NoInfer<T>>[]): Observable<T | undefined> {
  return live<T>(
    'queryOne$',
    c,
    (ctx) => fetchOne(ctx, c, ...filters),
    (a, b) => a === b,
  );
}

/**
 * A live computation over any collections: runs `compute(ctx)` (which reads them through `fetch`) while
 * subscribed, and emits its result now and after each transaction that changed it (distinct by `equals`,
 * default structural). Where two `query$` streams under `combineLatest` show an intermediate pair when one
 * transaction changes both, one `compute$` reading both shows the transaction whole.
 * @example compute$((ctx) => ({ pods: fetch(ctx, pods).length, services: fetch(ctx, services).length }))
 */
export function compute$<R>(compute: (ctx: HandlerContext) => R, equals: (a: R, b: R) => boolean = defaultEquals): Observable<R> {
  requireTransform(compute, 'compute$', 'a computation');
  return live<R>('compute$', undefined, compute, equals) as Observable<R>;
}
