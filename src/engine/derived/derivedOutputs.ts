// The output side of a derived collection: its key entries as the visible state, the ledger that decides who
// owns each output key, and the staging of a run's result against what is visible.
import type { Event } from '../../core/event.js';
import { KeyError, TransformError } from '../../core/errors.js';
import { freezeOutput } from '../../core/freeze.js';
import { sameObjectName, storedKey } from '../../core/keyOf.js';
import type { CollectionOptions } from '../../core/types.js';
import { CollectionNode } from '../collectionNode.js';
import { SelectorLookup } from '../indexes/selectorLookup.js';
import { keyOutputs } from './keyOutputs.js';
import { KeyEntry } from './keyEntry.js';
import { LedgerHostOf, OutputLedger, type LedgerOwner } from './outputLedger.js';
import { visibleValues } from './visibleValues.js';
import { StagedOutputs } from './stagedOutputs.js';

/**
 * @internal The state half of a derived collection. Its visible state is its entries' values, with no second
 * map from key to value; `DerivedCollection` adds the input side (what to recompute, and running it).
 */
export abstract class DerivedOutputs<O> extends CollectionNode<O> implements LedgerOwner<O> {
  /**
   * Every key that is an input (the parent holds it) or an output (some input produces it), and, until its
   * batch is out, every output key that stopped being produced.
   */
  protected readonly entries = new Map<string, KeyEntry<O>>();
  protected readonly ledger: OutputLedger<O>;
  /** A run's outputs between the transform and the ledger. */
  protected readonly staged = new StagedOutputs<O>();
  /**
   * Both this collection and its parent key objects with the default `keyOf`: an output with its input's
   * `metadata.name` and `namespace` then has its input's key (see `stageOne`).
   */
  private readonly keysFollowNames: boolean;

  constructor(opts: CollectionOptions<never> | undefined, defaultName: string, parentDefaultKeyed: boolean) {
    super(opts, defaultName);
    this.keysFollowNames = this.defaultKeyed && parentDefaultKeyed;
    this.ledger = new OutputLedger<O>(this.entries, new LedgerHostOf<O>(this, this.eq));
  }

  override getKey(key: string): O | undefined {
    return this.entries.get(key)?.value;
  }

  override list(): O[] {
    const out: O[] = [];
    for (const e of this.entries.values()) if (e.value !== undefined) out.push(e.value);
    return out;
  }

  override values(): IterableIterator<O> {
    return visibleValues(this.entries);
  }

  override forEachKeyed(fn: (value: O, key: string) => void): void {
    for (const [k, e] of this.entries) if (e.value !== undefined) fn(e.value, k);
  }

  override get size(): number {
    return this.ledger.visibleCount;
  }

  /**
   * The lookup follows the entries, whose order is `values()` order: every entry has its place in it, and
   * an entry without a visible value (an input whose transform produced nothing, an output key between owners)
   * keeps an empty one.
   */
  protected override buildSelectorLookup(): SelectorLookup<O> {
    const lookup = new SelectorLookup<O>();
    for (const [k, e] of this.entries) {
      if (e.value !== undefined) lookup.set(k, e.value);
      else lookup.reserve(k);
    }
    return lookup;
  }

  protected override visibleState(): ReadonlyMap<string, O | undefined> {
    const visible = new Map<string, O | undefined>();
    for (const [k, e] of this.entries) visible.set(k, e.value);
    return visible;
  }

  /**
   * The entry of an input key, created on first sight. `stored`: the key is one the parent keeps, already as
   * `storedKey` leaves it (the build reads the parent's state), so it is kept as it is.
   */
  protected record(key: string, stored = false): KeyEntry<O> {
    let r = this.entries.get(key);
    if (r === undefined) {
      const kept = stored ? key : storedKey(key);
      r = new KeyEntry<O>(kept);
      this.entries.set(kept, r);
      this.indexes.reserve(kept);
    }
    r.isInput = true;
    return r;
  }

  /** @internal The ledger changed a key's visible value: the lookup and the indexes follow. */
  outputChanged(key: string, old: O | undefined, value: O | undefined): void {
    this.stateVersion++;
    if (this.indexes.active) this.indexes.visibleChanged(key, old, value);
  }

  /** @internal The ledger dropped an entry. */
  entryDropped(key: string): void {
    this.indexes.dropped(key);
  }

  /** @internal The ledger's batch. */
  emitOutputs(events: Event<O>[], keys: readonly string[]): void {
    this.emit(events, keys);
  }

  /**
   * Applies the common run of a 1:1 collection without staging it: an output named like its input, by an
   * input with nothing else on its entry (no waiting input, several outputs, error or kept result), which
   * either owns that output already (a rerun) or produced nothing and nobody else produces its key (a
   * first run). Returns false, having changed nothing, for any other result (the general path stages it);
   * throws what the freeze throws (the run's failure).
   */
  protected applyOwnOutput(rec: KeyEntry<O>, o: unknown): boolean {
    if (!this.keysFollowNames || rec.hasRare()) return false;
    const owner = rec.owner;
    if (owner === rec) {
      if (rec.oneValue === undefined || !sameObjectName(o, rec.input)) return false;
      if (!this.ledger.same(rec.value!, o as O, rec.key)) {
        const next = freezeOutput(o as O);
        rec.oneValue = next;
        this.ledger.replaceOwn(rec, next);
      }
      return true;
    }
    if (owner !== undefined || rec.oneValue !== undefined || !sameObjectName(o, rec.input)) return false;
    const next = freezeOutput(o as O);
    rec.oneKey = rec.key;
    rec.oneValue = next;
    rec.applied = true;
    this.ledger.claimOwn(rec, next);
    return true;
  }

  /** Stages the result of a single-output transform. */
  protected stageOne(o: O | undefined | null, rec: KeyEntry<O>): void {
    if (o === undefined || o === null) return;
    // Most outputs are keyed like their input: that key string is then shared, and no new one is built.
    // Named like the input, they are known to be without reading the key (see sameObjectName).
    const keyedLikeInput = (this.keysFollowNames && sameObjectName(o, rec.input)) || this.hasKey(o, rec.key);
    const visible = keyedLikeInput && rec.owner === rec ? rec.value : undefined;
    if (visible === undefined) {
      this.staged.one(keyedLikeInput ? rec.key : this.keyOf(o), freezeOutput(o));
    } else if (this.ledger.same(visible, o, rec.key)) {
      // The rerun produced what is visible: the visible object stays, and the new one is neither frozen nor
      // kept, so an update that changes no output (most updates, in a controller) leaves nothing behind.
      this.staged.one(rec.key, visible);
    } else {
      // Compared here, inside the run, so that only a value that will be handed out is frozen (a freeze
      // that throws is still this run's failure); the ledger need not compare it again.
      this.staged.one(rec.key, freezeOutput(o));
      this.staged.differs = true;
    }
  }

  /** Stages a many-output transform's result; two outputs with one key: the last wins (reported). */
  protected stageMany(result: readonly O[] | undefined | null, rec: KeyEntry<O>): void {
    if (Array.isArray(result) && result.length === 1 && result[0] !== undefined && result[0] !== null) {
      this.stageOne(result[0], rec);
      return;
    }
    const m = keyOutputs(result, this.keyOf, (o, k) =>
      this.reportError(
        new TransformError(
          this.name,
          rec.key,
          new KeyError(this.name, o, `output key ${JSON.stringify(k)} returned twice by one transform run; the last one wins`),
        ),
      ),
    );
    if (m === undefined) return;
    if (m.size === 1) for (const [k, v] of m) this.staged.one(k, v);
    else this.staged.many = m;
  }
}
