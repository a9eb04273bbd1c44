// A list that is filled and emptied once per transaction, reusing its backing store.
//
// Per-transaction arrays (`[]` then `push`) allocate a backing store each time they are refilled, and
// `length = 0` gives the store back; with one small transaction per event that is a cost on every event.
// This list keeps its store and only clears the slots it used.

/** @internal An append-only list emptied by `reset`, keeping its capacity. */
export class ScratchList<T> {
  private readonly items: Array<T | undefined> = [];
  length = 0;

  push(item: T): void {
    this.items[this.length++] = item;
  }

  at(i: number): T {
    return this.items[i] as T;
  }

  /** Empties the list; the references it held are dropped so that nothing outlives its transaction. */
  reset(): void {
    const n = this.length;
    // One item is what most lists of a one-event transaction hold: no call for it.
    if (n === 1) this.items[0] = undefined;
    else if (n > 1) clearSlots(this.items, n);
    this.length = 0;
  }
}

/**
 * The loop of `reset`, in a function of its own with nothing after it, so that V8's on-stack compile of a
 * long clear never meets a store it has no type feedback for (and deoptimizes `reset` on the hot path).
 */
function clearSlots(items: unknown[], n: number): void {
  for (let i = 0; i < n; i++) items[i] = undefined;
}
