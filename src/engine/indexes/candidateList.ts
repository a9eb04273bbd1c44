// The candidates a selector lookup names for one fetch: each object with the selector it was filed by.
import type { FiledSelector } from '../../core/labelSelector.js';

/**
 * @internal Filled by `SelectorLookup.candidates` and emptied by the fetch that tests them, keeping its
 * capacity (see ScratchList). Each candidate comes with the selector the lookup read when it filed the
 * object, so the fetch tests that selector instead of reading it again (`readSelector` looks at
 * `getLabelSelector`, `spec.selector` and `matchLabels` on every call). Undefined: the selector could not
 * be read, and the fetch must meet the error the way a scan would.
 */
export class CandidateList<T> {
  private readonly values: Array<T | undefined> = [];
  private readonly selectors: Array<FiledSelector | undefined> = [];
  length = 0;

  push(value: T, selector: FiledSelector | undefined): void {
    const i = this.length++;
    this.values[i] = value;
    this.selectors[i] = selector;
  }

  at(i: number): T {
    return this.values[i] as T;
  }

  selectorAt(i: number): FiledSelector | undefined {
    return this.selectors[i];
  }

  /** Empties the list; the references it held are dropped so that nothing outlives the fetch. */
  reset(): void {
    for (let i = 0; i < this.length; i++) this.values[i] = this.selectors[i] = undefined;
    this.length = 0;
  }
}
