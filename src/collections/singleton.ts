// What the singletons (newSingleton, newStatic, singletonFromValues) share: the Singleton face over a
// collection of at most one object, how its value is keyed, and the one-element input a derived singleton runs on.
import { Observable } from 'rxjs';
import type { Collection, CollectionOptions, EventHandler, Registration, Singleton } from '../core/types.js';
import { equals } from '../core/equals.js';
import { tryKeyOf } from '../core/keyOf.js';
import type { InternalCollection } from '../engine/internalCollection.js';
import { newStaticCollection } from './newStaticCollection.js';

/** @internal */
export class SingletonView<T> implements Singleton<T> {
  readonly value$: Observable<T | undefined>;

  constructor(protected readonly inner: Collection<T> & { values(): IterableIterator<T> }) {
    this.value$ = new Observable<T | undefined>((subscriber) => {
      let last = this.get();
      subscriber.next(last);
      const reg = inner.registerBatch(() => {
        const v = this.get();
        if (!equals(v, last)) {
          last = v;
          subscriber.next(v);
        }
      }, false);
      return () => reg.unregister();
    });
  }

  get(): T | undefined {
    const r = this.inner.values().next();
    return r.done === true ? undefined : r.value;
  }

  register(handler: EventHandler<T>): Registration {
    return this.inner.register(handler);
  }

  asCollection(): Collection<T> {
    return this.inner;
  }

  metadata(): Record<string, unknown> {
    return this.inner.metadata();
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  waitUntilSynced(signal?: AbortSignal): Promise<boolean> {
    return this.inner.waitUntilSynced(signal);
  }
}

/** The key a singleton uses for values `keyOf` cannot key (numbers, plain records, booleans). */
export const SINGLETON_KEY = 'static';

/**
 * @internal A string value is its own key (so a changed string is a delete plus an add, as in krt), an
 * object with a name keeps its key; anything else lives under `static`, so a changed value is an update.
 */
export function singletonKey(o: unknown): string {
  return tryKeyOf(o) ?? SINGLETON_KEY;
}

/** @internal A synced collection holding one empty string; never in the debugger. */
export function dummyInput(opts: CollectionOptions<never> | undefined): InternalCollection<string> {
  // It stops with the singleton, so that metrics and the debug server stop showing it.
  const input = newStaticCollection<string>([''], {
    ...(opts?.name !== undefined ? { name: `${opts.name}/input` } : {}),
    ...(opts?.stop !== undefined ? { stop: opts.stop } : {}),
  });
  return input as unknown as InternalCollection<string>;
}
