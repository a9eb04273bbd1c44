// Per-input dependency records and their reverse index: which inputs must recompute when a fetched collection changes.
import type { Event } from '../../core/event.js';
import type { IndexHandle, InternalCollection } from '../internalCollection.js';
import { depArray, depAt, depCount, matches, readsSelector, sameKeys, selectorIn, type DepList, type Dependency } from './dependency.js';
import type { FiledSelector } from '../../core/labelSelector.js';

/**
 * @internal What the index needs of an input: its key, the dependencies of its last committed run (which
 * the index alone writes), and a mark the owner uses to queue the input at most once per flush. The owner's
 * own per-input record implements it, so the reverse index hands back records, not keys to look up again.
 */
export interface TrackedInput {
  readonly key: string;
  deps: DepList;
  /**
   * Whether the input is already on the running flush's list (see `collectAffected`): the owner clears it
   * as it works through the list. A flag, not a flush counter, to save every input a field.
   */
  queued: boolean;
}

const NO_KEYS: readonly string[] = [];

/** Which of an event's objects carry the index key of the group a candidate was found in (see `consider`). */
const OLD_FILED = 1;
const NEW_FILED = 2;

/** Where `collectAffected` appends the inputs it finds. */
interface Sink<R> {
  push(r: R): void;
}

interface IndexedInputs<R> {
  readonly handle: IndexHandle<unknown>;
  readonly keys: Map<string, Set<R>>;
}

/** Everything known about one fetched collection. */
interface SourceEntry<R> {
  readonly source: InternalCollection<unknown>;
  /** Inputs with at least one dependency on this source. */
  users: number;
  /** Inputs that fetched these keys (key filters). */
  readonly byKey: Map<string, Set<R>>;
  /** Inputs that fetched through an index, by index uid, then by index key. */
  readonly byIndex: Map<number, IndexedInputs<R>>;
  /** Inputs with a dependency no index can narrow down (labels, selectors, generic, or none): scanned on every event. */
  readonly scan: Set<R>;
}

/** @internal Called when the first input starts, or the last input stops, reading a source. */
export interface SourceUseHooks {
  firstUse(source: InternalCollection<unknown>): void;
  lastUse(source: InternalCollection<unknown>): void;
  /** A user callback in a recorded filter (generic predicate, partialFetch projection, accessor) threw. */
  matchFailed?(inputKey: string, error: unknown): void;
}

/**
 * @internal The dependency state of one derived collection. Reverse-index entries exist only while some
 * input uses them, so relabelling or deleting inputs never leaves stale entries behind.
 */
export class DependencyIndex<R extends TrackedInput = TrackedInput> {
  private readonly bySource = new Map<number, SourceEntry<R>>();

  constructor(
    private readonly hooks: SourceUseHooks,
    /** The owner's input records by key (for `depsOf` and the strict-mode check). */
    private readonly inputs: ReadonlyMap<string, R>,
  ) {}

  /** What the input fetched in its last committed run. */
  depsOf(inputKey: string): readonly Dependency[] {
    return depArray(this.inputs.get(inputKey)?.deps);
  }

  /** Whether some input currently reads the source with this uid. */
  uses(sourceUid: number): boolean {
    return this.bySource.has(sourceUid);
  }

  /** The collections some input currently reads. */
  sources(): IterableIterator<InternalCollection<unknown>> {
    return mapIter(this.bySource.values(), (e) => e.source);
  }

  /** Number of reverse-index entries (tests use it to prove cleanup). */
  reverseEntryCount(): number {
    let n = 0;
    for (const e of this.bySource.values()) {
      n += e.byKey.size + e.scan.size;
      for (const ix of e.byIndex.values()) n += ix.keys.size;
    }
    return n;
  }

  /** Keys of the reverse index for one source, for tests: `key:<k>` and `index:<name>:<k>` strings. */
  reverseKeys(sourceUid: number): string[] {
    const e = this.bySource.get(sourceUid);
    if (e === undefined) return [];
    const out = [...e.byKey.keys()].map((k) => `key:${k}`);
    for (const ix of e.byIndex.values()) for (const k of ix.keys.keys()) out.push(`index:${ix.handle.name}:${k}`);
    return out.sort();
  }

  /** Replaces what `input` depends on. Links the new records before unlinking the old, so a source kept in use never churns. */
  set(input: R, deps: DepList): void {
    // A rerun that fetched exactly what the last run fetched hands back the same list (see TransformContext).
    if (deps === input.deps) return;
    // What is stored lives as long as the input: a transform context's array grew by push and carries spare
    // capacity, so it is copied to its exact size.
    const kept = Array.isArray(deps) ? deps.slice() : deps;
    const old = input.deps;
    input.deps = kept;
    // The common case: a rerun read the same sources through the same keys and index keys. The reverse
    // index files inputs by exactly those, so only the records (whose other filters may differ) change.
    if (sameFootprint(old, kept)) return;
    if (kept !== undefined) this.link(input, kept);
    if (old !== undefined) this.unlink(input, old);
  }

  /** Forgets everything `input` depends on. */
  delete(input: R): void {
    const old = input.deps;
    if (old === undefined) return;
    input.deps = undefined;
    this.unlink(input, old);
  }

  /**
   * Appends to `out` every input whose recorded dependencies on `sourceUid` match the old or the new object
   * of some event (an update whose partialFetch projection is unchanged does not count) and is not queued
   * yet, and marks it `queued`, so that it is appended once however many events reach it. `keys[i]` is the
   * key of `events[i]`.
   */
  collectAffected(sourceUid: number, events: readonly Event<unknown>[], keys: readonly string[], out: Sink<R>): void {
    const entry = this.bySource.get(sourceUid);
    if (entry === undefined) return;
    const { byKey, byIndex, scan } = entry;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      this.oldSelector = this.newSelector = undefined;
      // An event's old and new objects live under one key.
      if (byKey.size > 0) this.consider(byKey.get(keys[i]!), sourceUid, e, out);
      if (byIndex.size > 0) {
        for (const ix of byIndex.values()) {
          const oldKeys = e.old !== undefined ? ix.handle.extract(e.old) : NO_KEYS;
          const newKeys = e.new !== undefined ? ix.handle.extract(e.new) : NO_KEYS;
          for (const k of oldKeys)
            this.consider(ix.keys.get(k), sourceUid, e, out, ix.handle, newKeys.includes(k) ? OLD_FILED | NEW_FILED : OLD_FILED);
          // A reader under a key of both objects (an update that stays in its namespace) was tested against
          // both already: `changes` reads the old object and the new one. Testing it again found the same.
          for (const k of newKeys) if (!oldKeys.includes(k)) this.consider(ix.keys.get(k), sourceUid, e, out, ix.handle, NEW_FILED);
        }
      }
      if (scan.size > 0) this.consider(scan, sourceUid, e, out);
    }
    this.oldSelector = this.newSelector = undefined;
  }

  /**
   * The selectors of the event being tested, read by its first candidate that needs them: a service change
   * is tested against every pod of its namespace, which read them twice per pod before. Not kept when the
   * read throws, so every candidate meets (and reports) the error as it did.
   */
  private oldSelector: FiledSelector | undefined = undefined;
  private newSelector: FiledSelector | undefined = undefined;

  /** Strict mode: rebuilds the reverse index from the per-input records and compares. */
  inconsistency(): string | undefined {
    const copies = new Map<string, TrackedInput>();
    for (const k of this.inputs.keys()) copies.set(k, { key: k, deps: undefined, queued: false });
    const fresh = new DependencyIndex<TrackedInput>({ firstUse: () => {}, lastUse: () => {} }, copies);
    for (const [k, r] of this.inputs) fresh.set(copies.get(k)!, r.deps);
    for (const r of this.inputs.values())
      if (Array.isArray(r.deps) && (r.deps as readonly Dependency[]).length < 2)
        return `input ${JSON.stringify(r.key)} keeps ${(r.deps as readonly Dependency[]).length} dependencies in an array`;
    for (const [uid, e] of this.bySource) {
      const f = fresh.bySource.get(uid);
      if (f === undefined) return `source ${e.source.name} is indexed but no input depends on it`;
      if (f.users !== e.users) return `source ${e.source.name} has ${e.users} users recorded, ${f.users} real`;
      const a = this.reverseKeys(uid).join(',');
      const b = fresh.reverseKeys(uid).join(',');
      if (a !== b) return `reverse index of ${e.source.name} is [${a}], expected [${b}]`;
      const scanned = (s: Set<TrackedInput>): string =>
        [...s]
          .map((r) => r.key)
          .sort()
          .join(',');
      if (scanned(e.scan) !== scanned(f.scan)) return `scan set of ${e.source.name} is stale`;
      for (const inputs of e.byKey.values())
        for (const r of inputs)
          if (this.inputs.get(r.key) !== r)
            return `reverse index of ${e.source.name} holds a discarded record of input ${JSON.stringify(r.key)}`;
    }
    if (fresh.bySource.size !== this.bySource.size) return 'a source that inputs depend on is missing from the reverse index';
    return undefined;
  }

  /**
   * `via` and `filed`: the index group the candidates were found in, and which of the event's objects carry
   * that group's key (`OLD_FILED`, `NEW_FILED`); `via` is undefined for key groups and the scan set.
   */
  private consider(
    candidates: Set<R> | undefined,
    sourceUid: number,
    e: Event<unknown>,
    out: Sink<R>,
    via?: IndexHandle<unknown>,
    filed = 0,
  ): void {
    if (candidates === undefined) return;
    for (const input of candidates) {
      if (!input.queued && this.changes(input, sourceUid, e, via, filed)) {
        input.queued = true;
        out.push(input);
      }
    }
  }

  private changes(input: R, sourceUid: number, e: Event<unknown>, via: IndexHandle<unknown> | undefined, filed: number): boolean {
    const deps = input.deps;
    try {
      const n = depCount(deps);
      for (let i = 0; i < n; i++) {
        const dep = depAt(deps, i);
        if (dep.source.uid !== sourceUid) continue;
        const bySelector = readsSelector(dep);
        // Found in the index group of its only record, the input was filed under that record's index key, and
        // the group already told which objects carry the key: a selector change fanning out to the readers of
        // a namespace re-extracted the service's namespace once per reader to learn what it knew.
        const known = n === 1 && via !== undefined && dep.indexHandle === via;
        const matchedOld =
          e.old !== undefined &&
          (!known || (filed & OLD_FILED) !== 0) &&
          matches(dep, e.old, known, bySelector ? (this.oldSelector ??= selectorIn(dep.source, e.old)) : undefined);
        // Only partialFetch needs both sides of a match: a fan-out from a broad selector to a narrow one has
        // every reader match the old object, and testing the new one too was a second subset test per reader.
        if (matchedOld && dep.suppress === undefined) return true;
        const matchedNew =
          e.new !== undefined &&
          (!known || (filed & NEW_FILED) !== 0) &&
          matches(dep, e.new, known, bySelector ? (this.newSelector ??= selectorIn(dep.source, e.new)) : undefined);
        if (!matchedOld && !matchedNew) continue;
        // partialFetch: an update with an equal projection changes nothing the transform saw, unless it moved
        // the object into or out of the fetch's result (krt suppresses even then, losing membership changes).
        if (e.type === 'update' && dep.suppress !== undefined && matchedOld === matchedNew && dep.suppress(e.old, e.new)) continue;
        return true;
      }
    } catch (err) {
      // Filters run user code. One that throws must not escape the transaction: report it, and recompute
      // the input (the safe answer; its transform meets the same filter and reports what it finds).
      this.hooks.matchFailed?.(input.key, err);
      return true;
    }
    return false;
  }

  private link(input: R, deps: DepList): void {
    // Sources counted once per input; most inputs fetch one thing, and then there is nothing to de-duplicate.
    const n = depCount(deps);
    const seen = n > 1 ? new Set<number>() : undefined;
    for (let i = 0; i < n; i++) {
      const dep = depAt(deps, i);
      const uid = dep.source.uid;
      let entry = this.bySource.get(uid);
      if (entry === undefined) {
        entry = { source: dep.source, users: 0, byKey: new Map(), byIndex: new Map(), scan: new Set() };
        this.bySource.set(uid, entry);
        this.hooks.firstUse(dep.source);
      }
      if (seen === undefined || !seen.has(uid)) {
        seen?.add(uid);
        entry.users++;
      }
      if (dep.keys !== undefined) {
        for (const k of dep.keys) addTo(entry.byKey, k, input);
      } else if (dep.indexHandle !== undefined) {
        let ix = entry.byIndex.get(dep.indexHandle.uid);
        if (ix === undefined) {
          ix = { handle: dep.indexHandle, keys: new Map() };
          entry.byIndex.set(dep.indexHandle.uid, ix);
        }
        addTo(ix.keys, dep.indexKey!, input);
      } else {
        entry.scan.add(input);
      }
    }
  }

  /** Drops the entries of `deps` that the input's current records (already linked) no longer hold. */
  private unlink(input: R, deps: DepList): void {
    const current = depArray(input.deps);
    const n = depCount(deps);
    const seen = n > 1 ? new Set<number>() : undefined;
    for (let i = 0; i < n; i++) {
      const dep = depAt(deps, i);
      const uid = dep.source.uid;
      const entry = this.bySource.get(uid);
      if (entry === undefined) continue;
      if (dep.keys !== undefined) {
        for (const k of dep.keys) if (!holdsKey(current, uid, k)) removeFrom(entry.byKey, k, input);
      } else if (dep.indexHandle !== undefined) {
        const ix = entry.byIndex.get(dep.indexHandle.uid);
        if (ix !== undefined && !holdsIndexKey(current, uid, dep.indexHandle.uid, dep.indexKey!)) {
          removeFrom(ix.keys, dep.indexKey!, input);
          if (ix.keys.size === 0) entry.byIndex.delete(dep.indexHandle.uid);
        }
      } else if (!holdsScan(current, uid)) {
        entry.scan.delete(input);
      }
      // link() counted the input again for every source its new records use: one decrement per old source evens it out.
      if (seen === undefined || !seen.has(uid)) {
        seen?.add(uid);
        entry.users--;
      }
      if (entry.users === 0) {
        this.bySource.delete(uid);
        this.hooks.lastUse(entry.source);
      }
    }
  }
}

/** Whether two dependency lists occupy the same reverse-index entries: same sources, keys and index keys, in order. */
function sameFootprint(a: DepList, b: DepList): boolean {
  const n = depCount(a);
  if (n !== depCount(b)) return false;
  for (let i = 0; i < n; i++) {
    const x = depAt(a, i);
    const y = depAt(b, i);
    if (x.source !== y.source || !sameKeys(x.keys, y.keys) || x.indexHandle !== y.indexHandle || x.indexKey !== y.indexKey) return false;
  }
  return true;
}

function holdsKey(deps: readonly Dependency[], uid: number, key: string): boolean {
  return deps.some((d) => d.source.uid === uid && d.keys !== undefined && d.keys.includes(key));
}

function holdsIndexKey(deps: readonly Dependency[], uid: number, indexUid: number, key: string): boolean {
  return deps.some((d) => d.source.uid === uid && d.indexHandle?.uid === indexUid && d.indexKey === key);
}

function holdsScan(deps: readonly Dependency[], uid: number): boolean {
  return deps.some((d) => d.source.uid === uid && d.keys === undefined && d.indexHandle === undefined);
}

function addTo<R>(m: Map<string, Set<R>>, k: string, v: R): void {
  let s = m.get(k);
  if (s === undefined) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<R>(m: Map<string, Set<R>>, k: string, v: R): void {
  const s = m.get(k);
  if (s === undefined) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

function* mapIter<A, B>(it: Iterable<A>, f: (a: A) => B): IterableIterator<B> {
  for (const a of it) yield f(a);
}
