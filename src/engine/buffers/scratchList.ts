// A list that is filled and emptied once per transaction, reusing its backing store.
//
// Per-transaction arrays (`[]` then `push`) cost a 17-slot backing store each time they are refilled, and
// `length = 0` gives the store back. With one small transaction per event those allocations added up to
// more than the work itself; this list keeps its store and only clears the slots it used.

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
 * The loop of `reset`, in a function of its own with nothing after it. In `reset` itself, V8 compiled a long
 * clear on stack (OSR) before the store after the loop had ever run, and that code then bailed out at the
 * store on every later long reset ("Insufficient type feedback for generic named access", about 430 times in
 * `bench:counts`' fan-out process), with a compile of `reset` inside the measured updates.
 */
function clearSlots(items: unknown[], n: number): void {
  for (let i = 0; i < n; i++) items[i] = undefined;
}
