// The output side of a derived collection: which input owns each output key, what is visible, and the batch.
// The entries are the collection's state: an entry's `value` is what `getKey` returns.
//
// Inputs produce outputs (`apply`); the first input to produce a key owns it and its value is visible, later
// ones wait in line (a conflict, reported) and take over when it lets go. Every change to a visible value is
// noted once per batch with the value before it, so the batch is the difference between the state before
// the transaction and the state now: one event per key however often the key changed while it ran.
import type { Event } from '../../core/event.js';
import { KeyError, TransformError } from '../../core/errors.js';
import { ScratchList } from '../buffers/scratchList.js';
import { batchArray } from '../buffers/batchArray.js';
import { KeyEntry } from './keyEntry.js';
import { storedKey } from '../../core/keyOf.js';

/** @internal What the ledger needs from its collection. */
export interface LedgerHost<O> {
  readonly name: string;
  eq(a: O, b: O): boolean;
  /** A key's visible value changed from `old` to `value` (undefined: absent), e.g. for indexes. */
  visibleChanged(key: string, old: O | undefined, value: O | undefined): void;
  /** An entry left the entries (nobody produces its key and it is no input). */
  entryDropped(key: string): void;
  /** Commits a batch (`keys[i]` is the key of `events[i]`). */
  emitBatch(events: Event<O>[], keys: readonly string[]): void;
  reportError(err: TransformError): void;
}

/** @internal */
export class OutputLedger<O> {
  /**
   * Entries changed since the last emitted batch, in order of first change (one event each), and beside
   * each its value before that change. Kept here rather than in the entries: only changed entries need
   * it, and only until the batch is out.
   */
  private readonly changed = new ScratchList<KeyEntry<O>>();
  private readonly before = new ScratchList<O | undefined>();
  /**
   * The batch's only change while it is an input replacing its own output (a rerun of one input, the most
   * common transaction), with its value before; it joins `changed` as soon as anything else changes. One
   * change then costs two fields, not two list entries and their clearing.
   */
  private soleSlot: KeyEntry<O> | undefined = undefined;
  private soleBefore: O | undefined = undefined;
  /** Output keys with a visible value (the collection's size). */
  visibleCount = 0;
  /** Output keys that a second input started producing in this flush; reported once the flush is over. */
  private conflicts: Array<{ readonly slot: KeyEntry<O>; readonly input: KeyEntry<O>; readonly value: O }> = [];

  constructor(
    /** The collection's entries by key, shared with its input side. */
    private readonly entries: Map<string, KeyEntry<O>>,
    private readonly host: LedgerHost<O>,
  ) {}

  /**
   * An input left (its entry's input side is cleared): the entry goes, unless it is still an output or its
   * output changed in the batch being built (then it goes when the batch is out).
   */
  inputGone(entry: KeyEntry<O>): void {
    if (!entry.changed) this.dropIfEmpty(entry);
  }

  /** Emits the difference between each changed key's value before the batch and now, one event per key. */
  emitChanged(): void {
    const sole = this.soleSlot;
    if (sole !== undefined) {
      // Known to be an update: the slot's own input replaced a value with a different one, once.
      const old = this.soleBefore!;
      this.soleSlot = this.soleBefore = undefined;
      sole.changed = false;
      this.host.emitBatch([{ type: 'update', old, new: sole.value! }], [sole.key]);
      return;
    }
    const changed = this.changed;
    if (changed.length === 0) return;
    if (changed.length === 1) {
      // Exact-size literals: a `push`ed array gets a 17-slot store, for every single-event transaction.
      const slot = changed.at(0);
      const e = this.settle(slot, this.before.at(0));
      changed.reset();
      this.before.reset();
      if (e !== undefined) this.host.emitBatch([e], [slot.key]);
      return;
    }
    const n = changed.length;
    const out = batchArray<Event<O>>(n);
    const keys = batchArray<string>(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const slot = changed.at(i);
      const e = this.settle(slot, this.before.at(i));
      if (e === undefined) continue;
      out[m] = e;
      keys[m++] = slot.key;
    }
    if (m < n) out.length = keys.length = m;
    changed.reset();
    this.before.reset();
    this.host.emitBatch(out, keys);
  }

  /** The event a changed slot amounts to (if any); drops the slot when nobody produces it any more. */
  private settle(slot: KeyEntry<O>, old: O | undefined): Event<O> | undefined {
    const cur = slot.value;
    slot.changed = false;
    if (cur === undefined) this.dropIfEmpty(slot);
    if (old === undefined) return cur === undefined ? undefined : { type: 'add', new: cur };
    if (cur === undefined) return { type: 'delete', old };
    return !slot.rewritten || !this.same(old, cur, slot.key) ? { type: 'update', old, new: cur } : undefined;
  }

  /** Ends a batch without emitting it (the initial state, built before anyone listens). */
  settleChanged(): void {
    this.spillSole();
    for (let i = 0; i < this.changed.length; i++) {
      const slot = this.changed.at(i);
      slot.changed = false;
      if (slot.value === undefined) this.dropIfEmpty(slot);
    }
    this.changed.reset();
    this.before.reset();
  }

  /** A slot nobody produces any more leaves once its batch is out (until then the batch needs it). */
  private dropIfEmpty(slot: KeyEntry<O>): void {
    if (slot.owner === undefined && !slot.isInput && this.entries.get(slot.key) === slot) {
      this.entries.delete(slot.key);
      this.host.entryDropped(slot.key);
    }
  }

  /**
   * Set while the collection builds its initial state, which nobody receives as a batch (it reaches a
   * handler as its replay): a first output claimed then is not noted for one (see `claimOwn`).
   */
  building = false;

  /** Makes `value` the visible value of a slot, remembering the value before the batch's first change. */
  private put(slot: KeyEntry<O>, value: O | undefined): void {
    this.spillSole();
    if (!slot.changed) {
      slot.changed = true;
      slot.rewritten = false;
      this.changed.push(slot);
      this.before.push(slot.value);
    } else {
      slot.rewritten = true;
    }
    const old = slot.value;
    if (old === undefined) this.visibleCount++;
    else if (value === undefined) this.visibleCount--;
    slot.value = value;
    this.host.visibleChanged(slot.key, old, value);
  }

  /** A new visible value for an output its own input owns, known to differ from the one it replaces. */
  replaceOwn(slot: KeyEntry<O>, value: O): void {
    // A changed slot is the sole one or on the lists, so these two say whether anything changed yet.
    if (this.soleSlot !== undefined || this.changed.length > 0) {
      this.put(slot, value);
      return;
    }
    slot.changed = true;
    this.soleSlot = slot;
    const old = slot.value;
    this.soleBefore = old;
    slot.value = value;
    this.host.visibleChanged(slot.key, old, value);
  }

  /** Moves the sole change (if any) to the change list, where the next change joins it. */
  private spillSole(): void {
    const sole = this.soleSlot;
    if (sole === undefined) return;
    sole.rewritten = false;
    this.changed.push(sole);
    this.before.push(this.soleBefore);
    this.soleSlot = this.soleBefore = undefined;
  }

  /** An input's first output under its own key, which nobody produces: it owns it from now on. */
  claimOwn(slot: KeyEntry<O>, value: O): void {
    slot.owner = slot;
    if (this.building) this.putQuietly(slot, value);
    else this.put(slot, value);
  }

  /** `put` of a first value while building: no batch will hold the change. */
  private putQuietly(slot: KeyEntry<O>, value: O): void {
    this.visibleCount++;
    slot.value = value;
    this.host.visibleChanged(slot.key, undefined, value);
  }

  /** `equals` for outputs; a user `equals` that throws counts as "different" and is reported. */
  same(a: O, b: O, key: string): boolean {
    if (a === b) return true;
    try {
      return this.host.eq(a, b);
    } catch (e) {
      this.host.reportError(new TransformError(this.host.name, undefined, e, `equals threw comparing output ${JSON.stringify(key)}`));
      return false;
    }
  }

  /** Reports the output keys still claimed by more than one input once the flush is over. */
  reportConflicts(): void {
    if (this.conflicts.length === 0) return;
    const found = this.conflicts;
    this.conflicts = [];
    for (const c of found) {
      const { slot, input } = c;
      // Resolved within the transaction (the owner let the key go, or this input stopped producing it).
      if (slot.owner === undefined || slot.owner === input || slot.waiting?.includes(input) !== true) continue;
      this.host.reportError(
        new TransformError(
          this.host.name,
          input.key,
          new KeyError(
            this.host.name,
            c.value,
            `output key ${JSON.stringify(slot.key)} is already produced by input ${JSON.stringify(slot.owner.key)}; that input keeps it`,
          ),
        ),
      );
    }
  }

  /**
   * Makes (`nextKey`, `nextValue`) — or, for several outputs, `nextMany` — the input's outputs: diffs them
   * against its old ones and against what other inputs produce. `differs`: `nextValue` is known to differ
   * from the visible value of `nextKey`, which `rec` owns (the caller compared them).
   */
  apply(rec: KeyEntry<O>, nextKey: string, nextValue: O | undefined, nextMany: ReadonlyMap<string, O> | undefined, differs = false): void {
    const prevKey = rec.oneKey;
    const prevValue = rec.oneValue;
    const prevMany = rec.many;
    rec.oneKey = nextKey;
    rec.oneValue = nextValue;
    rec.many = nextMany;
    rec.applied = true;
    // `before` for a key must look at the previous run's outputs whatever their form: a run of several outputs
    // followed by a run of one of them is the same claim on that key (a waiting input keeps its one place).
    if (nextValue !== undefined)
      this.produce(
        rec,
        nextKey,
        nextValue,
        prevValue !== undefined ? prevKey === nextKey : prevMany !== undefined && prevMany.has(nextKey),
        differs,
      );
    else if (nextMany !== undefined)
      for (const [k, v] of nextMany)
        this.produce(rec, k, v, prevValue !== undefined ? prevKey === k : prevMany !== undefined && prevMany.has(k), false);
    if (prevValue !== undefined) {
      if (!rec.produces(prevKey)) this.release(rec, prevKey);
    } else if (prevMany !== undefined) {
      for (const k of prevMany.keys()) if (!rec.produces(k)) this.release(rec, k);
    }
  }

  /**
   * `rec` produces `v` under `k` (`before`: it did in its previous run; `differs`: `v` is known to differ
   * from the visible value, should `rec` own it): it becomes or stays the owner, or queues behind it.
   */
  private produce(rec: KeyEntry<O>, k: string, v: O, before: boolean, differs: boolean): void {
    // An output keyed like its input lives in the input's own entry: no lookup.
    const slot = k === rec.key ? rec : this.entries.get(k);
    if (slot === undefined) {
      const key = storedKey(k);
      const fresh = new KeyEntry<O>(key);
      fresh.owner = rec;
      this.entries.set(key, fresh);
      this.put(fresh, v);
    } else if (slot.owner === rec) {
      if (differs || !this.same(slot.value!, v, k)) this.put(slot, v);
    } else if (slot.owner === undefined) {
      // Nobody produces the key (an input's own entry, or an output emptied earlier in this batch and not
      // yet dropped, so that the key still gets one event).
      slot.owner = rec;
      this.put(slot, v);
    } else if (!before) {
      (slot.waiting ??= []).push(rec);
      this.conflicts.push({ slot, input: rec, value: v });
    }
  }

  /** `rec` no longer produces `k`: the next producer in line takes it over, or it goes. */
  private release(rec: KeyEntry<O>, k: string): void {
    const slot = k === rec.key ? rec : this.entries.get(k)!;
    if (slot.owner !== rec) {
      slot.stopWaiting(rec);
      return;
    }
    slot.promoteNext();
    const heir = slot.owner as KeyEntry<O> | undefined; // `as`: promoteNext() undid the narrowing to `rec`
    if (heir === undefined) {
      this.put(slot, undefined);
    } else {
      const v = heir.outputFor(k)!;
      if (!this.same(slot.value!, v, k)) this.put(slot, v);
    }
  }
}

/** @internal What a ledger's collection offers, as the derived collection implements it. */
export interface LedgerOwner<O> {
  readonly name: string;
  outputChanged(key: string, old: O | undefined, value: O | undefined): void;
  entryDropped(key: string): void;
  emitOutputs(events: Event<O>[], keys: readonly string[]): void;
  reportError(err: TransformError): void;
}

/**
 * @internal The ledger's view of its collection. Methods on a prototype, not closures made per collection:
 * a closure is a new call target for every graph, and V8 throws away optimized code that inlined one once
 * its graph is collected.
 */
export class LedgerHostOf<O> implements LedgerHost<O> {
  readonly name: string;

  constructor(
    private readonly c: LedgerOwner<O>,
    /** The collection's equality: a shared function unless the user gave one. */
    readonly eq: (a: O, b: O) => boolean,
  ) {
    this.name = c.name;
  }

  visibleChanged(key: string, old: O | undefined, value: O | undefined): void {
    this.c.outputChanged(key, old, value);
  }

  entryDropped(key: string): void {
    this.c.entryDropped(key);
  }

  emitBatch(events: Event<O>[], keys: readonly string[]): void {
    this.c.emitOutputs(events, keys);
  }

  reportError(err: TransformError): void {
    this.c.reportError(err);
  }
}
