// A reverse lookup over a set of objects that carry selectors: which of them may select a given label map.
//
// Testing every selector of a namespace's services for each pod costs one subset test per service, and a
// fetch such as `servicesByNamespace.fetch(ctx, ns, filterSelectsNonEmpty(podLabels))` runs for every pod
// update. Any selector that is a subset of a label map contains one of that map's pairs; so each object is
// filed under one pair of its selector (its anchor), and the candidates for a label map are the objects
// filed under the map's own pairs. Callers still test each candidate: the lookup narrows, it never decides.

import type { Labels } from '../../core/labels.js';
import { CompiledSelector, readSelector as readFiledSelector, type FiledSelector } from '../../core/labelSelector.js';
import type { CandidateList } from './candidateList.js';

/**
 * Below this many objects a set is scanned: testing a few selectors costs less than the lookup's map reads
 * and sort, and sets that are never fetched by selector never get a lookup.
 */
export const SELECTOR_LOOKUP_MIN_SIZE = 8;

/**
 * Filing an object under a label name that nothing else is filed under costs every later lookup of a label
 * map with that name a read of its value (a cold string, at scale) and a map probe, whether or not the
 * object is selected; joining a bucket of a name in use costs one more candidate to test, and only for the
 * label maps with that pair. So a new name is taken only when every pair of an existing name already holds
 * this many objects. Services that select `app=<name>` and a few that add `shard=s-0` then all file under
 * `app`, and a pod's lookup never reads its shard label.
 */
const NEW_NAME_COST = 4;

/**
 * Up to this many anchor names, `candidates` reads each name from the label map; beyond, it walks the label
 * map and probes the names (a label map with fewer labels than the lookup has names is then the cheaper walk).
 */
const FEW_NAMES = 4;

/** One object of the set, or a place kept for one (see `reserve`). */
interface Slot<T> {
  /** Undefined only in a kept place, which is filed nowhere. */
  value: T | undefined;
  /** The selector it was filed by: an update keeping the same selector object keeps the filing. */
  selector: FiledSelector | undefined;
  /** Position in the set's insertion order, which answers keep. */
  readonly seq: number;
  /** Where the slot is filed: one anchor bucket, the empty selectors, or the ones always a candidate; undefined
   * for a kept place. */
  bucket: Slot<T>[] | undefined;
  /** Its index in `bucket` (buckets are unordered: removal moves the last slot into the gap). */
  pos: number;
  /** The anchor pair, when `bucket` is an anchor bucket. */
  anchorName: string | undefined;
  anchorValue: unknown;
}

/**
 * @internal Mirrors one set of objects (kept in step by its owner through `set` and `delete`) and answers
 * `candidates`: in the set's insertion order, every object whose selector could be a subset of a label map.
 */
export class SelectorLookup<T> {
  private readonly slots = new Map<string, Slot<T>>();
  /** label name → label value → the slots whose anchor is that pair. */
  private readonly anchored = new Map<string, Map<unknown, Slot<T>[]>>();
  /**
   * The names `anchored` holds, with their value maps, in a plain list: while there are few, `candidates`
   * walks them and reads each from the label map, rather than walking the label map and probing `anchored`
   * for each of its names. Services file under one or two names (`app`, say) and pods carry more labels.
   * Kept beside `anchored` rather than read from it, because a `for…of` over a Map costs an iterator per call.
   */
  private readonly names: string[] = [];
  private readonly byName: Map<unknown, Slot<T>[]>[] = [];
  /** Empty selectors: they select every label map under `filterSelects`, none under `filterSelectsNonEmpty`. */
  private readonly empty: Slot<T>[] = [];
  /**
   * Always candidates: objects whose selector could not be read (a throwing `getLabelSelector`), so that the
   * caller's own test meets the error where a scan would have, and selectors whose every value is undefined
   * (outside the types, but such a pair matches every label map without that label, which no pair of the
   * label map leads to), and selectors of expressions only (`NotIn` and `DoesNotExist` select label maps
   * without the label, so no pair of a label map leads to them either: they are tested on every lookup).
   */
  private readonly always: Slot<T>[] = [];
  private nextSeq = 0;
  /** Reused by `candidates`, which runs no user code, so nothing can re-enter while it is filled; its slots
   * are cleared by hand rather than with `length = 0`, which would give its backing store back. */
  private readonly found: Array<Slot<T> | undefined> = [];

  /** Keys held, kept places included. */
  get size(): number {
    return this.slots.size;
  }

  /** Adds `key` at the end of the order, or gives it `value` in place (keeping its position). */
  set(key: string, value: T): void {
    const slot = this.slots.get(key);
    if (slot === undefined) {
      this.file(this.place(key, value));
      return;
    }
    if (slot.value === value) return;
    const bucket = slot.bucket;
    slot.value = value;
    if (bucket !== undefined) {
      if (bucket !== this.always && readSelector(value) === slot.selector) return;
      this.unfile(slot);
    }
    this.file(slot);
  }

  /**
   * Keeps a place at the end of the order for `key`, holding no value yet, unless the key is held. A set
   * whose keys are not in insertion order of their values (a derived collection's entries: an input's
   * entry comes first, its output may come later) keeps the set's own order this way.
   */
  reserve(key: string): void {
    if (!this.slots.has(key)) this.place(key, undefined);
  }

  /** A new, unfiled slot for `key` at the end of the order. */
  private place(key: string, value: T | undefined): Slot<T> {
    const slot: Slot<T> = {
      value,
      selector: undefined,
      seq: this.nextSeq++,
      bucket: undefined,
      pos: -1,
      anchorName: undefined,
      anchorValue: undefined,
    };
    this.slots.set(key, slot);
    return slot;
  }

  /** Takes `key`'s value away but keeps its place in the order (see `reserve`). */
  vacate(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined || slot.bucket === undefined) return;
    this.unfile(slot);
    slot.value = undefined;
    slot.selector = undefined;
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    if (slot.bucket !== undefined) this.unfile(slot);
  }

  /**
   * Appends to `out`, in insertion order, every object whose selector may be a subset of `labels` (with
   * `withEmpty`, also those whose selector is empty), each with the selector it is filed by (undefined:
   * unreadable). Objects left out certainly do not select `labels`.
   */
  candidates(labels: Labels, withEmpty: boolean, out: CandidateList<T>): void {
    const found = this.found;
    let n = 0;
    const names = this.names;
    if (names.length <= FEW_NAMES) {
      // Reading the label by name finds what the filters' own test (`labels[name] === value`) finds, also a
      // label the map does not enumerate.
      for (let j = 0; j < names.length; j++) {
        const value: unknown = labels[names[j]!];
        if (value === undefined) continue;
        const bucket = this.byName[j]!.get(value);
        if (bucket !== undefined) for (let i = 0; i < bucket.length; i++) found[n++] = bucket[i];
      }
    } else {
      for (const name in labels) {
        const byValue = this.anchored.get(name);
        if (byValue === undefined) continue;
        const bucket = byValue.get(labels[name]);
        if (bucket !== undefined) for (let i = 0; i < bucket.length; i++) found[n++] = bucket[i];
      }
    }
    const always = this.always;
    for (let i = 0; i < always.length; i++) found[n++] = always[i];
    if (withEmpty) for (let i = 0; i < this.empty.length; i++) found[n++] = this.empty[i];
    if (n > 16) {
      // A crowded pair (many selectors sharing their least crowded pair): a real sort.
      const sorted = (found.slice(0, n) as Slot<T>[]).sort(bySeq);
      for (let i = 0; i < n; i++) found[i] = sorted[i];
    } else {
      // Few candidates, from a few buckets: an insertion sort, without a comparator call.
      for (let i = 1; i < n; i++) {
        const s = found[i]!;
        let j = i - 1;
        while (j >= 0 && found[j]!.seq > s.seq) {
          found[j + 1] = found[j];
          j--;
        }
        found[j + 1] = s;
      }
    }
    for (let i = 0; i < n; i++) {
      const slot = found[i]!;
      out.push(slot.value!, slot.selector);
      found[i] = undefined;
    }
  }

  /**
   * Strict mode: what is wrong with this lookup as a mirror of `set` (in `set`'s iteration order), or
   * undefined. Each object must be there, in order, filed where its current selector says; a key whose
   * value is undefined in `set` must be a kept place (see `reserve`).
   */
  inconsistency(set: ReadonlyMap<string, T | undefined>): string | undefined {
    if (set.size !== this.slots.size) return `selector lookup holds ${this.slots.size} keys, the set ${set.size}`;
    let lastSeq = -1;
    for (const [key, value] of set) {
      const slot = this.slots.get(key);
      if (slot === undefined || slot.value !== value) return `selector lookup is missing the current value of ${JSON.stringify(key)}`;
      if (slot.seq <= lastSeq) return `selector lookup has ${JSON.stringify(key)} out of order`;
      lastSeq = slot.seq;
      if (value === undefined) {
        if (slot.bucket !== undefined) return `selector lookup files ${JSON.stringify(key)}, which holds no value`;
        continue;
      }
      if (slot.bucket === undefined || slot.bucket[slot.pos] !== slot)
        return `selector lookup lost track of ${JSON.stringify(key)} in its bucket`;
      const selector = readSelector(value);
      const pairs = selector === undefined ? undefined : anchorPairs(selector);
      const filed =
        pairs === undefined
          ? slot.bucket === this.always
          : slot.anchorName === undefined
            ? Object.keys(pairs).length === 0 && !(selector instanceof CompiledSelector)
              ? slot.bucket === this.empty
              : slot.bucket === this.always && Object.values(pairs).every((v: unknown) => v === undefined)
            : pairs[slot.anchorName] === slot.anchorValue && this.anchored.get(slot.anchorName)?.get(slot.anchorValue) === slot.bucket;
      if (!filed) return `selector lookup files ${JSON.stringify(key)} under a pair its selector does not have`;
    }
    return undefined;
  }

  /**
   * Files a slot under the least crowded pair of its selector, so that no bucket grows needlessly; a pair
   * whose label name nothing is filed under yet counts as `NEW_NAME_COST` others (see there).
   */
  private file(slot: Slot<T>): void {
    const selector = readSelector(slot.value);
    slot.selector = selector;
    slot.anchorName = undefined;
    slot.anchorValue = undefined;
    if (selector === undefined) return this.put(slot, this.always);
    // A compiled selector is filed by its matchLabels: a label map it selects has all of those pairs too.
    const anchors = anchorPairs(selector);
    let bestCost = Infinity;
    let pairs = selector instanceof CompiledSelector ? 1 : 0;
    for (const name in anchors) {
      pairs++;
      const value: unknown = anchors[name];
      if (value === undefined) continue;
      const byValue = this.anchored.get(name);
      const cost = byValue === undefined ? NEW_NAME_COST : (byValue.get(value)?.length ?? 0);
      if (cost < bestCost) {
        slot.anchorName = name;
        slot.anchorValue = value;
        bestCost = cost;
        if (cost === 0) break;
      }
    }
    if (slot.anchorName === undefined) return this.put(slot, pairs === 0 ? this.empty : this.always);
    let byValue = this.anchored.get(slot.anchorName);
    if (byValue === undefined) {
      this.anchored.set(slot.anchorName, (byValue = new Map()));
      this.names.push(slot.anchorName);
      this.byName.push(byValue);
    }
    let bucket = byValue.get(slot.anchorValue);
    if (bucket === undefined) byValue.set(slot.anchorValue, (bucket = []));
    this.put(slot, bucket);
  }

  private put(slot: Slot<T>, bucket: Slot<T>[]): void {
    slot.bucket = bucket;
    slot.pos = bucket.length;
    bucket.push(slot);
  }

  private unfile(slot: Slot<T>): void {
    const bucket = slot.bucket!;
    slot.bucket = undefined;
    const last = bucket.pop()!;
    if (last !== slot) {
      bucket[slot.pos] = last;
      last.pos = slot.pos;
    }
    // Empty anchor buckets are dropped, so that a set whose selectors churn does not keep every pair it saw.
    if (slot.anchorName === undefined || bucket.length > 0) return;
    const byValue = this.anchored.get(slot.anchorName)!;
    byValue.delete(slot.anchorValue);
    if (byValue.size > 0) return;
    this.anchored.delete(slot.anchorName);
    const j = this.names.indexOf(slot.anchorName);
    const lastName = this.names.pop()!;
    const lastMap = this.byName.pop()!;
    if (j < this.names.length) {
      this.names[j] = lastName;
      this.byName[j] = lastMap;
    }
  }
}

const bySeq = (a: { seq: number }, b: { seq: number }): number => a.seq - b.seq;

function readSelector(o: unknown): FiledSelector | undefined {
  try {
    return readFiledSelector(o);
  } catch {
    return undefined;
  }
}

/** The pairs a selector can be filed under: every label map it selects has them all. */
function anchorPairs(selector: FiledSelector): Labels {
  return selector instanceof CompiledSelector ? selector.matchLabels : selector;
}
