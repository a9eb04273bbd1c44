// A mutable source collection that user code writes directly.
import type { Collection, CollectionOptions } from '../core/types.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import { SourceNode } from '../engine/sourceNode.js';

/** A collection whose contents you set by hand. Every method is one transaction (or joins the current `batch`). */
export interface StaticCollection<T> extends Collection<T> {
  /** Inserts or replaces; always emits (`add`, or `update` even when equal). */
  updateObject(o: T): void;
  /** Inserts or replaces; emits nothing when the new value `equals` the old one. */
  conditionalUpdateObject(o: T): void;
  /** Removes the object with this key, if any. */
  deleteObject(key: string): void;
  /** Removes every object the predicate accepts, as one batch. */
  deleteObjects(predicate: (o: T) => boolean): void;
  /** Replaces the whole contents; emits the difference as one batch. */
  reset(list: readonly T[]): void;
  /** Marks the initial contents complete (for collections built with `synced: false`). */
  markSynced(): void;
}

class StaticCollectionNode<T> extends SourceNode<T> implements StaticCollection<T> {
  constructor(initial: readonly T[], opts: (CollectionOptions<never> & { synced?: boolean }) | undefined) {
    super(opts, 'Static', opts?.synced ?? true);
    for (const o of initial) this.state.set(this.keptKey(this.keyOf(o)), freezeInput(o));
    this.start(opts);
  }

  updateObject(o: T): void {
    this.refuseIfStopped('updateObject');
    const key = this.keyOf(o);
    const v = freezeInput(o);
    this.writeOne(key, v, true);
  }

  conditionalUpdateObject(o: T): void {
    this.refuseIfStopped('conditionalUpdateObject');
    const key = this.keyOf(o);
    const v = freezeInput(o);
    this.run(() => {
      const cur = this.state.get(key);
      if (cur !== undefined && this.eq(cur, v)) return;
      this.write(key, v, false, true);
    });
  }

  deleteObject(key: string): void {
    this.refuseIfStopped('deleteObject');
    this.writeOne(key, undefined, false);
  }

  deleteObjects(predicate: (o: T) => boolean): void {
    this.refuseIfStopped('deleteObjects');
    this.run(() => {
      for (const [k, v] of [...this.state]) if (predicate(v)) this.write(k, undefined, false);
    });
  }

  reset(list: readonly T[]): void {
    this.refuseIfStopped('reset');
    const next = new Map<string, T>();
    for (const o of list) next.set(this.keyOf(o), freezeInput(o));
    this.run(() => {
      for (const k of [...this.state.keys()]) if (!next.has(k)) this.write(k, undefined, false);
      for (const [k, v] of next) {
        const cur = this.state.get(k);
        if (cur === undefined || !this.eq(cur, v)) this.write(k, v, false, true);
      }
    });
  }

  override markSynced(): void {
    this.refuseIfStopped('markSynced');
    super.markSynced();
  }

  /** Keys are computed (and a KeyError thrown) before `run`, so bad input fails at the call even when the write is deferred. */
  private run(fn: () => void): void {
    mutate(fn);
  }
}

/**
 * Builds a collection whose contents you set by hand.
 * @param initial objects present from the start (duplicate keys: the last wins).
 * @param opts `synced: false` keeps it unsynced until `markSynced()`.
 * @throws KeyError when an object has no key (at the call, before anything changes).
 * @example
 * const pods = newStaticCollection<Pod>([], { name: 'Pods' });
 * pods.updateObject(pod);
 */
export function newStaticCollection<T>(
  initial: readonly T[] = [],
  opts?: CollectionOptions<NoInfer<T>> & { synced?: boolean },
): StaticCollection<T> {
  return new StaticCollectionNode<T>(initial, opts);
}
