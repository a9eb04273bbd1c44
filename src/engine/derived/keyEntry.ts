// The per-key bookkeeping of a derived collection: one entry per key, whether the key names an input, an
// output, or (in the common 1:1 collection, a Workload per Pod) both.
//
// An entry holds everything the engine knows about its key, so a recompute reaches all of it through one
// lookup; when a transform's output is keyed like its input, the input's own entry is the output's, and
// producing it takes no lookup at all. Entries point at each other directly (an output at the inputs
// producing it, the reverse dependency index at inputs) instead of through keys to look up again.
import type { DepList } from './dependency.js';
import type { TrackedInput } from './dependencyIndex.js';

/**
 * The bits of `KeyEntry.flags`: 1 isInput, 2 applied, 4 rewritten, 8 changed, 16 queued. The accessors
 * write them as literals, which keeps each small enough for V8 to inline it wherever it is called.
 */
const KEPT_BY_CLEAR_INPUT = 4 | 8 | 16;

/**
 * What few entries need, kept in an object that exists only while one of them is set: several outputs,
 * other inputs waiting for the key, or a failing run's state. A field each would cost every key of a
 * large collection memory, and make the entry longer to read.
 */
interface Rare<O> {
  many: ReadonlyMap<string, O> | undefined;
  waiting: KeyEntry<O>[] | undefined;
  goodDeps: DepList | null;
  error: string | undefined;
}

/**
 * @internal One key of a derived collection: its input side, its output side, or both. Most of its members
 * are accessor pairs over one bit field and one side object, which keep an entry small; its logic is few lines.
 */
export class KeyEntry<O> implements TrackedInput {
  // ---- input side: the parent holds an object under this key ----
  /** `isInput`, `applied`, `rewritten`, `changed` and `queued` as bits of one number (a field each costs memory per key). */
  private flags = 0;
  /**
   * The parent's value for the key, as its last batch said (undefined: not an input). A recompute that a
   * fetched collection caused reads it here instead of looking the key up in the parent again.
   */
  input: unknown = undefined;
  /** What the last committed run fetched (written by the DependencyIndex). */
  deps: DepList = undefined;
  /**
   * The last applied run's outputs, including outputs another input owns (shadowed). One output (most
   * transforms) sits in `oneKey`/`oneValue`; several in `many`; none: `oneValue` and `many` undefined.
   * No wrapper object per run, and no Map per input.
   */
  oneKey = '';
  oneValue: O | undefined = undefined;
  private rare: Rare<O> | undefined = undefined;

  // ---- output side: some input produces an output under this key ----
  /** The first input producing the key, whose value is visible; undefined when nobody produces it. */
  owner: KeyEntry<O> | undefined = undefined;
  /** The visible value (the owner's output), the same object the collection's state holds. */
  value: O | undefined = undefined;

  /** Whether the parent holds the key (the entry has an input side). */
  get isInput(): boolean {
    return (this.flags & 1) !== 0;
  }
  set isInput(on: boolean) {
    this.flags = (this.flags & -2) | +on;
  }

  /** Whether some run's result has been applied (a first run with a discarded result may still set a default). */
  get applied(): boolean {
    return (this.flags & 2) !== 0;
  }
  set applied(on: boolean) {
    this.flags = (this.flags & -3) | (+on * 2);
  }

  /** Changed more than once in this batch: the batch must compare the value before it with the final one. */
  get rewritten(): boolean {
    return (this.flags & 4) !== 0;
  }
  set rewritten(on: boolean) {
    this.flags = (this.flags & -5) | (+on * 4);
  }

  /** The visible value changed in the batch being built: the entry is on the ledger's change list. */
  get changed(): boolean {
    return (this.flags & 8) !== 0;
  }
  set changed(on: boolean) {
    this.flags = (this.flags & -9) | (+on * 8);
  }

  /** On the running flush's list of inputs to recompute (set while the list is built, cleared as it is worked through). */
  get queued(): boolean {
    return (this.flags & 16) !== 0;
  }
  set queued(on: boolean) {
    this.flags = (this.flags & -17) | (+on * 16);
  }

  /** The last applied run's outputs when there are two or more (see `oneValue`). */
  get many(): ReadonlyMap<string, O> | undefined {
    return this.rare?.many;
  }
  set many(m: ReadonlyMap<string, O> | undefined) {
    if (this.rare !== undefined) {
      this.rare.many = m;
      if (m === undefined) this.dropRareIfEmpty();
    } else if (m !== undefined) {
      this.rare = { many: m, waiting: undefined, goodDeps: null, error: undefined };
    }
  }

  /** Inputs that produce the key too, in order of first production (duplicates: reported, next in line). */
  get waiting(): KeyEntry<O>[] | undefined {
    return this.rare?.waiting;
  }
  set waiting(w: KeyEntry<O>[] | undefined) {
    if (this.rare !== undefined) {
      this.rare.waiting = w;
      if (w === undefined) this.dropRareIfEmpty();
    } else if (w !== undefined) {
      this.rare = { many: undefined, waiting: w, goodDeps: null, error: undefined };
    }
  }

  /**
   * While the last run failed or discarded its result: the dependencies of the last good run (null while
   * runs succeed). Such a run depends on those plus its own reads; keeping the base apart stops repeated
   * failures from piling up dependency records without bound.
   */
  get goodDeps(): DepList | null {
    return this.rare === undefined ? null : this.rare.goodDeps;
  }
  set goodDeps(deps: DepList | null) {
    if (this.rare !== undefined) {
      this.rare.goodDeps = deps;
      if (deps === null) this.dropRareIfEmpty();
    } else if (deps !== null) {
      this.rare = { many: undefined, waiting: undefined, goodDeps: deps, error: undefined };
    }
  }

  /** The last error of a failing transform (for the debug dump). */
  get error(): string | undefined {
    return this.rare?.error;
  }
  set error(message: string | undefined) {
    if (this.rare !== undefined) {
      this.rare.error = message;
      if (message === undefined) this.dropRareIfEmpty();
    } else if (message !== undefined) {
      this.rare = { many: undefined, waiting: undefined, goodDeps: null, error: message };
    }
  }

  /**
   * A run succeeded: no error to show. Every run calls it, and the setter is too large to be inlined;
   * this checks the side object inline and calls the setter only when there is one.
   */
  clearError(): void {
    if (this.rare !== undefined) this.error = undefined;
  }

  /** A run's result was applied: its own reads are the good ones (see `clearError` for why a method). */
  clearGoodDeps(): void {
    if (this.rare !== undefined) this.goodDeps = null;
  }

  /** Whether any of the rare state (several outputs, inputs waiting, a failing run's state) is set. */
  hasRare(): boolean {
    return this.rare !== undefined;
  }

  private dropRareIfEmpty(): void {
    const r = this.rare!;
    if (r.many === undefined && r.waiting === undefined && r.goodDeps === null && r.error === undefined) this.rare = undefined;
  }

  constructor(readonly key: string) {}

  /** Whether the last applied run produced `k`. */
  produces(k: string): boolean {
    return this.oneValue !== undefined ? k === this.oneKey : this.many !== undefined && this.many.has(k);
  }

  /** What the last applied run produced under `k`. */
  outputFor(k: string): O | undefined {
    if (this.oneValue !== undefined) return k === this.oneKey ? this.oneValue : undefined;
    return this.many?.get(k);
  }

  hasOutputs(): boolean {
    return this.oneValue !== undefined || this.many !== undefined;
  }

  outputKeys(): string[] {
    if (this.oneValue !== undefined) return [this.oneKey];
    return this.many === undefined ? [] : [...this.many.keys()];
  }

  /** Forgets the input side (the parent no longer holds the key); the output side stays. */
  clearInput(): void {
    this.flags &= KEPT_BY_CLEAR_INPUT;
    this.input = undefined;
    this.oneKey = '';
    this.oneValue = undefined;
    const r = this.rare;
    if (r !== undefined) {
      r.many = undefined;
      r.goodDeps = null;
      r.error = undefined;
      this.dropRareIfEmpty();
    }
  }

  /** Every input producing the key, the owner first. */
  producers(): KeyEntry<O>[] {
    if (this.owner === undefined) return [];
    return this.waiting === undefined ? [this.owner] : [this.owner, ...this.waiting];
  }

  /** Drops `input` from the waiting line (it stopped producing the key). */
  stopWaiting(input: KeyEntry<O>): void {
    const w = this.waiting;
    if (w === undefined) return;
    const i = w.indexOf(input);
    if (i >= 0) w.splice(i, 1);
    if (w.length === 0) this.waiting = undefined;
  }

  /** The owner left: the next input in line takes over (or nobody). */
  promoteNext(): void {
    const w = this.waiting;
    if (w === undefined) {
      this.owner = undefined;
      return;
    }
    this.owner = w.shift();
    if (w.length === 0) this.waiting = undefined;
  }
}
