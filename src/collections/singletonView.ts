// The Singleton face of a collection that holds at most one object.
import { Observable } from 'rxjs';
import type { Collection, EventHandler, Registration, Singleton } from '../core/types.js';
import { equals } from '../core/equals.js';

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
