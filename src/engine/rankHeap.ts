// A binary min-heap ordered by (rank, uid): the transaction's topological work list.
//
// Every transaction pushes each collection it touches, so the heap keeps its items and their ranks in two
// parallel arrays with a length of its own: no entry object per push, and no backing store given back when
// it empties (an array that `pop`s down to nothing lets V8 shrink its store, to grow it again next time).

/** @internal What the heap orders. */
export interface Ranked {
  rank: number;
  readonly uid: number;
}

/** @internal */
export class RankHeap<T extends Ranked> {
  private readonly items: Array<T | undefined> = [];
  /** Each item's rank when it was pushed: an item whose rank grew since is pushed again when it surfaces. */
  private readonly ranks: number[] = [];
  private length = 0;

  get size(): number {
    return this.length;
  }

  push(item: T): void {
    const items = this.items;
    const ranks = this.ranks;
    const rank = item.rank;
    let i = this.length++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(rank, item.uid, ranks[p]!, items[p]!.uid)) break;
      items[i] = items[p];
      ranks[i] = ranks[p]!;
      i = p;
    }
    items[i] = item;
    ranks[i] = rank;
  }

  /** Pops the lowest item; an item whose rank grew since it was pushed is pushed again at its new rank. */
  pop(): T | undefined {
    for (;;) {
      if (this.length === 0) return undefined;
      const top = this.items[0]!;
      const pushedAt = this.ranks[0]!;
      this.removeTop();
      if (pushedAt === top.rank) return top;
      this.push(top);
    }
  }

  /** Moves the last item to the top and sifts it down. */
  private removeTop(): void {
    const items = this.items;
    const ranks = this.ranks;
    const n = --this.length;
    const last = items[n]!;
    const lastRank = ranks[n]!;
    items[n] = undefined;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(ranks[r]!, items[r]!.uid, ranks[l]!, items[l]!.uid) ? r : l;
      if (!less(ranks[c]!, items[c]!.uid, lastRank, last.uid)) break;
      items[i] = items[c];
      ranks[i] = ranks[c]!;
      i = c;
    }
    items[i] = last;
    ranks[i] = lastRank;
  }
}

function less(rank: number, uid: number, otherRank: number, otherUid: number): boolean {
  return rank < otherRank || (rank === otherRank && uid < otherUid);
}
