// Per-key Observables of one collection (`get$`): one batch handler for all of them, each batch routed only
// to the keys it touched, so a thousand watched keys cost one key lookup per event, not a thousand.
import { Observable } from 'rxjs';
import type { Event } from '../core/event.js';
import type { BatchHandler, Registration } from '../core/types.js';

/** @internal What key streams need from their collection. */
export interface KeyStreamSource<T> {
  getKey(key: string): T | undefined;
  keyOf(o: unknown): string;
  registerBatch(handler: BatchHandler<T>, runExistingState?: boolean): Registration;
}

type Listener = () => void;

/** @internal The `get$` streams of one collection. */
export class KeyStreams<T> {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** The one batch handler, registered while some key is watched. */
  private registration: Registration | undefined;

  constructor(
    private readonly source: KeyStreamSource<T>,
    private readonly equals: (a: T, b: T) => boolean,
  ) {}

  /** The value under `key` now, then each committed change to it; `undefined` while absent. */
  get$(key: string): Observable<T | undefined> {
    return new Observable<T | undefined>((subscriber) => {
      let last = this.source.getKey(key);
      subscriber.next(last);
      const listener: Listener = () => {
        const now = this.source.getKey(key);
        if (this.same(last, now)) return;
        last = now;
        subscriber.next(now);
      };
      this.add(key, listener);
      return () => this.remove(key, listener);
    });
  }

  private same(a: T | undefined, b: T | undefined): boolean {
    if (a === undefined || b === undefined) return a === b;
    return a === b || this.equals(a, b);
  }

  private add(key: string, listener: Listener): void {
    let set = this.listeners.get(key);
    if (set === undefined) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    this.registration ??= this.source.registerBatch((batch) => this.route(batch), false);
  }

  private remove(key: string, listener: Listener): void {
    const set = this.listeners.get(key);
    if (set === undefined) return;
    set.delete(listener);
    if (set.size === 0) this.listeners.delete(key);
    if (this.listeners.size === 0) {
      this.registration?.unregister();
      this.registration = undefined;
    }
  }

  /** Tells each watched key of the batch once, after the commit (handlers run then: no glitch is visible). */
  private route(batch: readonly Event<T>[]): void {
    const touched = new Set<string>();
    for (const e of batch) {
      const key = this.source.keyOf(e.new ?? e.old);
      if (this.listeners.has(key)) touched.add(key);
    }
    for (const key of touched) {
      const set = this.listeners.get(key);
      if (set !== undefined) for (const l of [...set]) l();
    }
  }
}
