// The per-key bookkeeping of a derived collection: one entry per key, whether the key names an input, an
// output, or (in the common 1:1 collection, a Workload per Pod) both.
//
// An entry holds everything the engine knows about its key, so a recompute reaches all of it through one
// lookup; when a transform's output is keyed like its input, the input's own entry is the output's, and
// producing it takes no lookup at all. Entries point at each other directly (an output at the inputs
// producing it, the reverse dependency index at inputs) instead of through keys to look up again.
import type { DepList } from '../fetch/dependency.js';
import type { TrackedInput } from '../fetch/dependencyIndex.js';

const INPUT = 1;
const APPLIED = 2;
const REWRITTEN = 4;

/** What a failing input keeps (see `KeyEntry.goodDeps` and `KeyEntry.error`). */
interface Failure {
  goodDeps: DepList | null;
  error: string | undefined;
}

/** @internal One key of a derived collection: its input side, its output side, or both. */
export class KeyEntry<O> implements TrackedInput {
  // ---- input side: the parent holds an object under this key ----
  /**
   * `isInput`, `applied` and `rewritten` as bits of one number: each boolean would take a field of its own,
   * and an entry per key of a 100k-object collection makes every field 0.8 MB.
   */
  private flags = 0;
  /**
   * The parent's value for the key, as its last batch said (undefined: not an input). A recompute that a
   * fetched collection caused reads it here instead of looking the key up in the parent again.
   */
  input: unknown = undefined;
  /** What the last committed run fetched (written by the DependencyIndex). */
  deps: DepList = undefined;
  queuedAt = 0;
  /**
   * The last applied run's outputs, including outputs another input owns (shadowed). One output (most
   * transforms) sits in `oneKey`/`oneValue`; several in `many`; none: `oneValue` and `many` undefined.
   * No wrapper object per run, and no Map per input.
   */
  oneKey = '';
  oneValue: O | undefined = undefined;
  many: ReadonlyMap<string, O> | undefined = undefined;
  /** `goodDeps` and `error`, in an object that exists only while the input's runs fail or discard. */
  private failure: Failure | undefined = undefined;

  // ---- output side: some input produces an output under this key ----
  /** The first input producing the key, whose value is visible; undefined when nobody produces it. */
  owner: KeyEntry<O> | undefined = undefined;
  /** Inputs that produce the key too, in order of first production (duplicates: reported, next in line). */
  waiting: KeyEntry<O>[] | undefined = undefined;
  /** The visible value (the owner's output), the same object the collection's state holds. */
  value: O | undefined = undefined;
  /** The value before the first change since the last emitted batch (see `changedIn`). */
  before: O | undefined = undefined;
  /** The batch in which the output last changed; an entry changed in the current batch is on the change list. */
  changedIn = -1;

  /** Whether the parent holds the key (the entry has an input side). */
  get isInput(): boolean {
    return (this.flags & INPUT) !== 0;
  }
  set isInput(on: boolean) {
    this.flags = on ? this.flags | INPUT : this.flags & ~INPUT;
  }

  /** Whether some run's result has been applied (a first run with a discarded result may still set a default). */
  get applied(): boolean {
    return (this.flags & APPLIED) !== 0;
  }
  set applied(on: boolean) {
    this.flags = on ? this.flags | APPLIED : this.flags & ~APPLIED;
  }

  /** Changed more than once in this batch: the batch must compare `before` with the final value. */
  get rewritten(): boolean {
    return (this.flags & REWRITTEN) !== 0;
  }
  set rewritten(on: boolean) {
    this.flags = on ? this.flags | REWRITTEN : this.flags & ~REWRITTEN;
  }

  /**
   * While the last run failed or discarded its result: the dependencies of the last good run (null while
   * runs succeed). Such a run depends on those plus its own reads; keeping the base apart stops repeated
   * failures from piling up dependency records without bound.
   */
  get goodDeps(): DepList | null {
    return this.failure === undefined ? null : this.failure.goodDeps;
  }
  set goodDeps(deps: DepList | null) {
    if (this.failure !== undefined) {
      this.failure.goodDeps = deps;
      if (deps === null && this.failure.error === undefined) this.failure = undefined;
    } else if (deps !== null) {
      this.failure = { goodDeps: deps, error: undefined };
    }
  }

  /** The last error of a failing transform (for the debug dump). */
  get error(): string | undefined {
    return this.failure?.error;
  }
  set error(message: string | undefined) {
    if (this.failure !== undefined) {
      this.failure.error = message;
      if (message === undefined && this.failure.goodDeps === null) this.failure = undefined;
    } else if (message !== undefined) {
      this.failure = { goodDeps: null, error: message };
    }
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

  /** Forgets the input side (the parent no longer holds the key). */
  clearInput(): void {
    this.flags &= REWRITTEN;
    this.input = undefined;
    this.oneKey = '';
    this.oneValue = undefined;
    this.many = undefined;
    this.failure = undefined;
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
