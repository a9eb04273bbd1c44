// What a collection keeps beside its state so that reads by index and by selector need no scan.
import type { IndexHandle, InternalCollection } from '../internalCollection.js';
import { IndexState } from './indexState.js';
import type { SelectorLookup } from './selectorLookup.js';

/**
 * @internal A collection's secondary indexes and its selector lookup, kept in step with every write. Both
 * are built on first use, so a collection nobody reads by index or selector keeps nothing here and a write
 * costs it one flag test (`active`).
 */
export class StateIndexes<T> {
  private all: IndexState<T>[] = [];
  /**
   * The selector lookup, from the first fetch by selector that found enough objects for a lookup to pay
   * (the owner builds it, see `InternalCollection.selecting`). Its order is `values()` order.
   */
  private lookup_: SelectorLookup<T> | undefined = undefined;
  /** An index or the lookup exists: writes must be passed on. */
  active = false;

  get lookup(): SelectorLookup<T> | undefined {
    return this.lookup_;
  }

  set lookup(l: SelectorLookup<T> | undefined) {
    this.lookup_ = l;
    this.active = l !== undefined || this.all.length > 0;
  }

  /**
   * The index called `name`, built on first request. The name is the index's identity (as in krt): asking
   * again, even with another extract function, returns the existing index, so code that builds collections
   * in a loop with an inline extract function shares one index instead of adding one per build.
   */
  indexFor(
    name: string,
    source: InternalCollection<T>,
    extract: (o: T) => readonly string[],
    onError: (e: unknown, o: T) => void,
  ): IndexHandle<T> {
    const existing = this.all.find((ix) => ix.name === name);
    if (existing !== undefined) return existing;
    const ix = new IndexState<T>(name, source, extract, onError);
    this.all = [...this.all, ix];
    this.active = true;
    return ix;
  }

  /** A key of a source or a view went from `old` to `value` (undefined: absent). */
  written(key: string, old: T | undefined, value: T | undefined): void {
    const lookup = this.lookup_;
    if (lookup !== undefined) {
      if (value === undefined) lookup.delete(key);
      else lookup.set(key, value);
    }
    this.updateIndexes(key, old, value);
  }

  /**
   * A derived collection's visible value for `key` went from `old` to `value`. An entry without a visible
   * value keeps its place in the lookup, because the derived collection's order is its entries' order.
   */
  visibleChanged(key: string, old: T | undefined, value: T | undefined): void {
    const lookup = this.lookup_;
    if (lookup !== undefined) {
      if (value === undefined) lookup.vacate(key);
      else lookup.set(key, value);
    }
    this.updateIndexes(key, old, value);
  }

  /** A derived collection made an entry for `key` (its place in the order). */
  reserve(key: string): void {
    this.lookup_?.reserve(key);
  }

  /** A derived collection dropped the entry for `key`. */
  dropped(key: string): void {
    this.lookup_?.delete(key);
  }

  /** Strict mode: what is wrong with the lookup or an index as a mirror of `visible`, or undefined. */
  inconsistency(visible: ReadonlyMap<string, T | undefined>): string | undefined {
    const bad = this.lookup_?.inconsistency(visible);
    if (bad !== undefined) return bad;
    for (const ix of this.all) {
      const wrong = ix.inconsistency();
      if (wrong !== undefined) return wrong;
    }
    return undefined;
  }

  private updateIndexes(key: string, old: T | undefined, value: T | undefined): void {
    const indexes = this.all;
    for (let i = 0; i < indexes.length; i++) indexes[i]!.update(key, old, value);
  }
}
