// The base of collections whose value for a key is recomputed from upstream whenever a batch touches the key.
import type { Event } from '../core/event.js';
import type { CollectionOptions } from '../core/types.js';
import { schedule } from './transaction.js';
import type { InternalCollection } from './internalCollection.js';
import { CollectionNode } from './collectionNode.js';

/** What `compute` returns to leave a key's value as it is (an unchanged input, or a failure already reported). */
export const KEEP: unique symbol = Symbol('rxkrt.keep');

/**
 * @internal A collection over one or more upstream collections whose value for a key is a function of what
 * upstream holds now (a map, a join, an index's groups). A batch from upstream names the keys it touches;
 * the next flush computes each of them once and emits the difference from the current state.
 */
export abstract class KeyedView<T> extends CollectionNode<T> {
  /** Keys touched since the last flush, each once, in the order they were first touched. */
  private touched = new Set<string>();

  constructor(
    protected readonly upstream: readonly InternalCollection<unknown>[],
    opts: CollectionOptions<never> | undefined,
    defaultName: string,
  ) {
    super(opts, defaultName);
  }

  /**
   * Subclasses call this last in their constructor, once `compute` can run: reads upstream and computes
   * `keys` (nobody is registered yet, so that first state is not emitted).
   */
  protected init(opts: CollectionOptions<never> | undefined, keys: Iterable<string>): void {
    for (const u of this.upstream) u.addDependent(this);
    const ignored: Event<T>[] = [];
    const ignoredKeys: string[] = [];
    for (const k of keys) this.refresh(k, ignored, ignoredKeys);
    this.start(opts);
    this.evaluateSync();
  }

  /** The value `key` should have now (undefined: none), or `KEEP` to leave the current one. */
  protected abstract compute(key: string): T | undefined | typeof KEEP;

  /** The keys of this view that an upstream batch touches: by default the batch's own keys. */
  protected touch(_events: readonly Event<unknown>[], keys: readonly string[], into: Set<string>): void {
    for (const k of keys) into.add(k);
  }

  /** A value about to be handed out (a view that freezes its values does it here, once it is known to change). */
  protected admit(value: T): T {
    return value;
  }

  override receive(_from: InternalCollection<unknown>, events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    this.touch(events, keys, this.touched);
    schedule(this);
  }

  flush(): void {
    const touched = this.touched;
    this.touched = new Set();
    if (this.disposed) return;
    const out: Event<T>[] = [];
    const keys: string[] = [];
    for (const k of touched) this.refresh(k, out, keys);
    this.emit(out, keys);
  }

  /** Computes one key and appends the event that takes the state there, if any. */
  private refresh(key: string, out: Event<T>[], keys: string[]): void {
    const next = this.compute(key);
    if (next === KEEP) return;
    const cur = this.state.get(key);
    if (cur === undefined) {
      if (next === undefined) return;
      const value = this.admit(next);
      this.setState(key, value);
      out.push({ type: 'add', new: value });
    } else if (next === undefined) {
      this.setState(key, undefined);
      out.push({ type: 'delete', old: cur });
    } else if (cur !== next && !this.eq(cur, next)) {
      const value = this.admit(next);
      this.setState(key, value);
      out.push({ type: 'update', old: cur, new: value });
    } else {
      return;
    }
    keys.push(key);
  }

  protected upstreamReady(): boolean {
    return this.upstream.every((u) => u.hasSynced());
  }

  protected onDispose(): void {
    for (const u of this.upstream) u.removeDependent(this);
    this.touched.clear();
  }
}
