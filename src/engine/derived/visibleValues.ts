// The values a derived collection shows: its entries' visible values, stepped through without a generator.
import type { KeyEntry } from './keyEntry.js';

/** @internal The visible values of a derived collection's entries, in the entries' order. */
export function visibleValues<O>(entries: ReadonlyMap<string, KeyEntry<O>>): IterableIterator<O> {
  return new VisibleValues(entries.values());
}

/**
 * The entries' visible values. Not a generator: a fetch that scans a derived collection steps through every
 * value, and a generator's steps are neither inlined nor free of garbage. For the same reason every step
 * hands back one result object, rewritten: the iterator is internal, and its readers take the value at once.
 */
class VisibleValues<O> implements IterableIterator<O> {
  private readonly result: { done: boolean; value: O | undefined } = { done: false, value: undefined };

  constructor(private readonly inner: IterableIterator<KeyEntry<O>>) {}

  next(): IteratorResult<O, undefined> {
    const result = this.result;
    for (;;) {
      const r = this.inner.next();
      if (r.done === true) {
        result.done = true;
        result.value = undefined;
        return result as IteratorResult<O, undefined>;
      }
      const v = r.value.value;
      if (v !== undefined) {
        result.value = v;
        return result as IteratorResult<O, undefined>;
      }
    }
  }

  [Symbol.iterator](): IterableIterator<O> {
    return this;
  }
}
