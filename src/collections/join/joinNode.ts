// The engine shared by joinCollection and joinWithMergeCollection: recompute each touched key from the children.
import type { Event } from '../../core/event.js';
import { TransformError } from '../../core/errors.js';
import { schedule } from '../../engine/transaction.js';
import type { CollectionDump, CollectionOptions, InputDump } from '../../core/types.js';
import type { InternalCollection } from '../../engine/internalCollection.js';
import { CollectionNode } from '../../engine/collectionNode.js';

/**
 * @internal A collection over several children whose value for a key is a function of the children's
 * values for that key (in children order). Only keys touched in a transaction are recomputed.
 */
export abstract class JoinNode<T> extends CollectionNode<T> {
  private touched = new Set<string>();

  constructor(
    protected readonly children: readonly InternalCollection<T>[],
    opts: CollectionOptions | undefined,
    defaultName: string,
  ) {
    // Without a `key` option, key objects as the first child does: children built with their own `key`
    // option would otherwise hold objects the join cannot key, and every reader of the join would fail.
    const first = children[0];
    super(opts?.key === undefined && first !== undefined ? { ...opts, key: (o: never) => first.keyOf(o) } : opts, defaultName);
  }

  /** Subclasses call this at the end of their constructor, once `combine` can run. */
  protected init(opts: CollectionOptions | undefined): void {
    for (const c of this.children) c.addDependent(this);
    // Live from construction: nobody is registered yet, so the initial batch goes nowhere.
    const sink: Event<T>[] = [];
    for (const c of this.children) for (const v of c.values()) this.resolve(c.keyOf(v), sink);
    this.start(opts);
    this.evaluateSync();
  }

  /** The joined value for `key` from the children's current values, or undefined for none. */
  protected abstract combine(key: string, values: T[]): T | undefined;

  override receive(_from: InternalCollection<unknown>, _events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    for (const k of keys) this.touched.add(k);
    schedule(this);
  }

  flush(): void {
    const touched = this.touched;
    this.touched = new Set();
    if (this.disposed) return;
    const out: Event<T>[] = [];
    const keys: string[] = [];
    for (const k of touched) if (this.resolve(k, out)) keys.push(k);
    this.emit(out, keys);
  }

  /** The values the children hold for `key`, in children order. */
  protected valuesFor(key: string): T[] {
    const values: T[] = [];
    for (const c of this.children) {
      const v = c.getKey(key);
      if (v !== undefined) values.push(v);
    }
    return values;
  }

  /** Recomputes one key; returns whether it appended an event to `out`. */
  private resolve(key: string, out: Event<T>[]): boolean {
    const cur = this.state.get(key);
    const values = this.valuesFor(key);
    let next: T | undefined;
    try {
      next = values.length === 0 ? undefined : this.combine(key, values);
    } catch (e) {
      // Keep the last joined value; the error names the key being joined.
      this.reportError(new TransformError(this.name, key, e));
      return false;
    }
    if (next === null) next = undefined;
    if (cur === undefined) {
      if (next === undefined) return false;
      this.setState(key, next);
      out.push({ type: 'add', new: next });
    } else if (next === undefined) {
      this.setState(key, undefined);
      out.push({ type: 'delete', old: cur });
    } else if (cur !== next && !this.eq(cur, next)) {
      this.setState(key, next);
      out.push({ type: 'update', old: cur, new: next });
    } else {
      return false;
    }
    return true;
  }

  protected upstreamReady(): boolean {
    return this.children.every((c) => c.hasSynced());
  }

  protected onDispose(): void {
    for (const c of this.children) c.removeDependent(this);
    this.touched.clear();
  }

  override dump(): CollectionDump {
    const inputs: Record<string, InputDump> = {};
    for (const c of this.children) for (const v of c.values()) inputs[c.keyOf(v)] = {};
    return { ...super.dump(), inputs };
  }
}
