// A binary min-heap ordered by (rank, uid): the transaction's topological work list.

/** @internal What the heap orders. */
export interface Ranked {
  rank: number;
  readonly uid: number;
}

interface Entry<T extends Ranked> {
  readonly item: T;
  readonly rank: number;
}

/** @internal */
export class RankHeap<T extends Ranked> {
  private readonly entries: Entry<T>[] = [];

  get size(): number {
    return this.entries.length;
  }

  push(item: T): void {
    const a = this.entries;
    a.push({ item, rank: item.rank });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  /** Pops the lowest entry; an item whose rank grew since it was pushed is pushed again at its new rank. */
  pop(): T | undefined {
    for (;;) {
      const e = this.popEntry();
      if (e === undefined) return undefined;
      if (e.rank === e.item.rank) return e.item;
      this.push(e.item);
    }
  }

  private popEntry(): Entry<T> | undefined {
    const a = this.entries;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && less(a[l]!, a[m]!)) m = l;
      if (r < a.length && less(a[r]!, a[m]!)) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
    return top;
  }
}

function less<T extends Ranked>(x: Entry<T>, y: Entry<T>): boolean {
  return x.rank < y.rank || (x.rank === y.rank && x.item.uid < y.item.uid);
}
