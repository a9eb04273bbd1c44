// The engine of the nested joins: a join whose children are the members of a collection of collections.
//
// Members come and go with the container's batches, and each member's own batches touch the keys they
// carry. Everything happens inside the transaction, in rank order: the container and the members commit
// before this node flushes, so a key is always recomputed from committed state, once, by one writer. That
// is what makes the first-wins nested join safe here (krt removed its own: several handlers wrote one cache).
import type { Event } from '../../core/event.js';
import { TransformError } from '../../core/errors.js';
import type { Collection, CollectionDump, CollectionOptions, InputDump } from '../../core/types.js';
import { CollectionNode } from '../../engine/collectionNode.js';
import { internal, type InternalCollection } from '../../engine/internalCollection.js';
import { schedule } from '../../engine/transaction.js';

/** What `combine` returns to leave a key's value as it is (a failure already reported). */
export const KEEP_VALUE: unique symbol = Symbol('rxkrt.nestedJoin.keep');

/**
 * @internal A collection over the members of `container`: the value of a key is `combine` of the members'
 * values for it, in the container's `values()` order. Only keys touched in a transaction are recomputed.
 */
export abstract class NestedJoinNode<T> extends CollectionNode<T> {
  /** The members read now, in the container's order. */
  private members: InternalCollection<T>[] = [];
  /** Keys touched since the last flush, each once. */
  private touched = new Set<string>();
  /** Whether the container changed since the last flush (its members are then compared with `members`). */
  private containerChanged = false;

  constructor(
    private readonly container: InternalCollection<Collection<T>>,
    opts: CollectionOptions<never> | undefined,
    defaultName: string,
  ) {
    super(opts, defaultName);
  }

  /** Subclasses call this last in their constructor, once `combine` can run. */
  protected initNestedJoin(opts: CollectionOptions<never> | undefined): void {
    this.container.addDependent(this);
    this.reconcileMembers();
    const ignored: Event<T>[] = [];
    const ignoredKeys: string[] = [];
    for (const k of this.touched) this.refresh(k, ignored, ignoredKeys);
    this.touched.clear();
    this.start(opts);
    this.evaluateSync();
  }

  /** The joined value of `key` from the members' values (at least one), undefined for none, or `KEEP_VALUE`. */
  protected abstract combine(key: string, values: T[]): T | undefined | typeof KEEP_VALUE;

  override receive(from: InternalCollection<unknown>, _events: readonly Event<unknown>[], keys: readonly string[]): void {
    if (this.disposed) return;
    if (from === (this.container as InternalCollection<unknown>)) this.containerChanged = true;
    else for (const k of keys) this.touched.add(k);
    schedule(this);
  }

  flush(): void {
    if (this.disposed) {
      this.touched.clear();
      return;
    }
    const rank = this.rank;
    if (this.containerChanged) {
      this.containerChanged = false;
      this.reconcileMembers();
    }
    if (this.rank !== rank) {
      // A new member ranks at or above this node and may not have committed yet in this transaction: flush
      // again at the new rank, after it, so that downstream sees one batch computed from committed state.
      schedule(this);
      return;
    }
    const touched = this.touched;
    this.touched = new Set();
    const out: Event<T>[] = [];
    const keys: string[] = [];
    for (const k of touched) this.refresh(k, out, keys);
    this.emit(out, keys);
  }

  /** Reads the container's members, links new ones and unlinks gone ones; touches every key of either. */
  private reconcileMembers(): void {
    const next: InternalCollection<T>[] = [];
    const seen = new Set<number>();
    const before = new Set(this.members);
    this.container.forEachKeyed((value, key) => {
      let member: InternalCollection<T>;
      try {
        member = internal(value, `${this.name}: member ${JSON.stringify(key)}`);
      } catch (e) {
        this.reportError(new TransformError(this.name, key, e, 'member ignored'));
        return;
      }
      if (seen.has(member.uid)) return;
      if (!before.delete(member)) {
        try {
          member.addDependent(this);
        } catch (e) {
          // A member downstream of this join (or the join itself) would close a cycle.
          this.reportError(new TransformError(this.name, key, e, 'member ignored'));
          return;
        }
        this.touchAll(member);
      }
      seen.add(member.uid);
      next.push(member);
    });
    for (const gone of before) {
      gone.removeDependent(this);
      this.touchAll(gone);
    }
    // A member removed and added back in one transaction moves in the container's order, which is the order
    // merge sees: every key of the members that stayed is then recomputed.
    if (!sameOrder(this.members, next, before)) for (const m of next) this.touchAll(m);
    this.members = next;
  }

  private touchAll(member: InternalCollection<T>): void {
    member.forEachKeyed((_v, k) => this.touched.add(k));
  }

  /** Computes one key and appends the event that takes the state there, if any. */
  private refresh(key: string, out: Event<T>[], keys: string[]): void {
    const values: T[] = [];
    for (const m of this.members) {
      const v = m.getKey(key);
      if (v !== undefined) values.push(v);
    }
    let next: T | undefined | typeof KEEP_VALUE;
    try {
      next = values.length === 0 ? undefined : (this.combine(key, values) ?? undefined);
    } catch (e) {
      // Keep the last joined value; the error names the key being joined.
      this.reportError(new TransformError(this.name, key, e));
      return;
    }
    if (next === KEEP_VALUE) return;
    const cur = this.state.get(key);
    if (cur === undefined) {
      if (next === undefined) return;
      this.setState(key, next);
      out.push({ type: 'add', new: next });
    } else if (next === undefined) {
      this.setState(key, undefined);
      out.push({ type: 'delete', old: cur });
    } else if (cur !== next && !this.eq(cur, next)) {
      this.setState(key, next);
      out.push({ type: 'update', old: cur, new: next });
    } else {
      return;
    }
    keys.push(key);
  }

  protected upstreamReady(): boolean {
    if (!this.container.hasSynced()) return false;
    for (const m of this.members) if (!m.hasSynced()) return false;
    return true;
  }

  override dump(): CollectionDump {
    const inputs: Record<string, InputDump> = {};
    for (const m of this.members) {
      const outputs: string[] = [];
      m.forEachKeyed((_v, k) => outputs.push(k));
      inputs[String(m.uid)] = { outputs };
    }
    return { ...super.dump(), inputs };
  }

  protected onDispose(): void {
    this.container.removeDependent(this);
    for (const m of this.members) m.removeDependent(this);
    this.members = [];
    this.touched.clear();
  }
}

/** Whether the members kept from `previous` (all but `gone`) come in `next` in the order they had. */
function sameOrder<T>(previous: readonly T[], next: readonly T[], gone: ReadonlySet<T>): boolean {
  const kept = new Set(previous);
  let i = 0;
  for (const m of previous) {
    if (gone.has(m)) continue;
    while (i < next.length && !kept.has(next[i]!)) i++;
    if (next[i] !== m) return false;
    i++;
  }
  return true;
}
