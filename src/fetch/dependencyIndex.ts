// Per-input dependency records and their reverse index: which inputs must recompute when a fetched collection changes.
import type { Event } from '../core/event.js';
import type { IndexHandle, InternalCollection } from '../core/internal.js';
import { matches, type Dependency } from './dependency.js';

interface IndexedInputs {
  readonly handle: IndexHandle<unknown>;
  readonly keys: Map<string, Set<string>>;
}

/** Everything known about one fetched collection. */
interface SourceEntry {
  readonly source: InternalCollection<unknown>;
  /** Inputs with at least one dependency on this source. */
  users: number;
  /** Inputs that fetched these keys (key filters). */
  readonly byKey: Map<string, Set<string>>;
  /** Inputs that fetched through an index, by index uid, then by index key. */
  readonly byIndex: Map<number, IndexedInputs>;
  /** Inputs with a dependency no index can narrow down (labels, selectors, generic, or none): scanned on every event. */
  readonly scan: Set<string>;
}

/** @internal Called when the first input starts, or the last input stops, reading a source. */
export interface SourceUseHooks {
  firstUse(source: InternalCollection<unknown>): void;
  lastUse(source: InternalCollection<unknown>): void;
  /** A user callback in a recorded filter (generic predicate, partialFetch projection, accessor) threw. */
  matchFailed?(inputKey: string, error: unknown): void;
}

const NO_DEPS: readonly Dependency[] = [];

/**
 * @internal The dependency state of one derived collection. Reverse-index entries exist only while some
 * input uses them, so relabelling or deleting inputs never leaves stale entries behind.
 */
export class DependencyIndex {
  private readonly byInput = new Map<string, readonly Dependency[]>();
  private readonly bySource = new Map<number, SourceEntry>();

  constructor(private readonly hooks: SourceUseHooks) {}

  /** What the input fetched in its last committed run. */
  depsOf(inputKey: string): readonly Dependency[] {
    return this.byInput.get(inputKey) ?? NO_DEPS;
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

  /** Replaces what `inputKey` depends on. Links the new records before unlinking the old, so a source kept in use never churns. */
  set(inputKey: string, deps: readonly Dependency[]): void {
    const old = this.byInput.get(inputKey);
    // What is stored lives as long as the input: an exact-size copy, not the transform context's array,
    // which grew by push and carries spare capacity (about 130 bytes per input).
    // The common case: a rerun read the same sources through the same keys and index keys. The reverse
    // index files inputs by exactly those, so only the records (whose other filters may differ) change.
    if (old !== undefined && sameFootprint(old, deps)) {
      this.byInput.set(inputKey, deps.slice());
      return;
    }
    if (deps.length > 0) {
      this.byInput.set(inputKey, deps.slice());
      this.link(inputKey, deps);
    } else {
      this.byInput.delete(inputKey);
    }
    if (old !== undefined) this.unlink(inputKey, old);
  }

  delete(inputKey: string): void {
    const old = this.byInput.get(inputKey);
    if (old === undefined) return;
    this.byInput.delete(inputKey);
    this.unlink(inputKey, old);
  }

  /**
   * Adds to `out` every input whose recorded dependencies on `sourceUid` match the old or the new object
   * of some event (an update whose partialFetch projection is unchanged does not count).
   */
  collectAffected(sourceUid: number, events: readonly Event<unknown>[], out: Set<string>): void {
    const entry = this.bySource.get(sourceUid);
    if (entry === undefined) return;
    const { byKey, byIndex, scan, source } = entry;
    for (const e of events) {
      if (byKey.size > 0) {
        if (e.old !== undefined) this.consider(byKey.get(source.keyOf(e.old)), sourceUid, e, out);
        if (e.new !== undefined) this.consider(byKey.get(source.keyOf(e.new)), sourceUid, e, out);
      }
      if (byIndex.size > 0) {
        for (const ix of byIndex.values()) {
          if (e.old !== undefined) for (const k of ix.handle.extract(e.old)) this.consider(ix.keys.get(k), sourceUid, e, out);
          if (e.new !== undefined) for (const k of ix.handle.extract(e.new)) this.consider(ix.keys.get(k), sourceUid, e, out);
        }
      }
      if (scan.size > 0) this.consider(scan, sourceUid, e, out);
    }
  }

  /** Strict mode: rebuilds the reverse index from the per-input records and compares. */
  inconsistency(): string | undefined {
    const fresh = new DependencyIndex({ firstUse: () => {}, lastUse: () => {} });
    for (const [k, deps] of this.byInput) fresh.set(k, deps);
    for (const [uid, e] of this.bySource) {
      const f = fresh.bySource.get(uid);
      if (f === undefined) return `source ${e.source.name} is indexed but no input depends on it`;
      if (f.users !== e.users) return `source ${e.source.name} has ${e.users} users recorded, ${f.users} real`;
      const a = this.reverseKeys(uid).join(',');
      const b = fresh.reverseKeys(uid).join(',');
      if (a !== b) return `reverse index of ${e.source.name} is [${a}], expected [${b}]`;
      if ([...e.scan].sort().join(',') !== [...f.scan].sort().join(',')) return `scan set of ${e.source.name} is stale`;
    }
    if (fresh.bySource.size !== this.bySource.size) return 'a source that inputs depend on is missing from the reverse index';
    return undefined;
  }

  private consider(candidates: Set<string> | undefined, sourceUid: number, e: Event<unknown>, out: Set<string>): void {
    if (candidates === undefined) return;
    for (const inputKey of candidates) {
      if (!out.has(inputKey) && this.changes(inputKey, sourceUid, e)) out.add(inputKey);
    }
  }

  private changes(inputKey: string, sourceUid: number, e: Event<unknown>): boolean {
    const deps = this.byInput.get(inputKey);
    if (deps === undefined) return false;
    try {
      for (const dep of deps) {
        if (dep.source.uid !== sourceUid) continue;
        const matchedOld = e.old !== undefined && matches(dep, e.old, false);
        const matchedNew = e.new !== undefined && matches(dep, e.new, false);
        if (!matchedOld && !matchedNew) continue;
        // partialFetch: an update with an equal projection changes nothing the transform saw, unless it moved
        // the object into or out of the fetch's result (krt suppresses even then, losing membership changes).
        if (e.type === 'update' && dep.suppress !== undefined && matchedOld === matchedNew && dep.suppress(e.old, e.new)) continue;
        return true;
      }
    } catch (err) {
      // Filters run user code. One that throws must not escape the transaction: report it, and recompute
      // the input (the safe answer; its transform meets the same filter and reports what it finds).
      this.hooks.matchFailed?.(inputKey, err);
      return true;
    }
    return false;
  }

  private link(inputKey: string, deps: readonly Dependency[]): void {
    // Sources counted once per input; most inputs fetch one thing, and then there is nothing to de-duplicate.
    const seen = deps.length > 1 ? new Set<number>() : undefined;
    for (const dep of deps) {
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
        for (const k of dep.keys) addTo(entry.byKey, k, inputKey);
      } else if (dep.index !== undefined) {
        let ix = entry.byIndex.get(dep.index.handle.uid);
        if (ix === undefined) {
          ix = { handle: dep.index.handle, keys: new Map() };
          entry.byIndex.set(dep.index.handle.uid, ix);
        }
        addTo(ix.keys, dep.index.key, inputKey);
      } else {
        entry.scan.add(inputKey);
      }
    }
  }

  private unlink(inputKey: string, deps: readonly Dependency[]): void {
    const current = this.byInput.get(inputKey) ?? NO_DEPS;
    const seen = deps.length > 1 ? new Set<number>() : undefined;
    for (const dep of deps) {
      const uid = dep.source.uid;
      const entry = this.bySource.get(uid);
      if (entry === undefined) continue;
      // The input may still reach the same entry through its new records: only drop what they no longer hold.
      if (dep.keys !== undefined) {
        for (const k of dep.keys) if (!holdsKey(current, uid, k)) removeFrom(entry.byKey, k, inputKey);
      } else if (dep.index !== undefined) {
        const ix = entry.byIndex.get(dep.index.handle.uid);
        if (ix !== undefined && !holdsIndexKey(current, uid, dep.index.handle.uid, dep.index.key)) {
          removeFrom(ix.keys, dep.index.key, inputKey);
          if (ix.keys.size === 0) entry.byIndex.delete(dep.index.handle.uid);
        }
      } else if (!holdsScan(current, uid)) {
        entry.scan.delete(inputKey);
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
function sameFootprint(a: readonly Dependency[], b: readonly Dependency[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.source !== y.source) return false;
    if (x.keys !== y.keys) {
      if (x.keys === undefined || y.keys === undefined || x.keys.length !== y.keys.length) return false;
      for (let j = 0; j < x.keys.length; j++) if (x.keys[j] !== y.keys[j]) return false;
    }
    if (x.index !== y.index) {
      if (x.index === undefined || y.index === undefined) return false;
      if (x.index.handle !== y.index.handle || x.index.key !== y.index.key) return false;
    }
  }
  return true;
}

function holdsKey(deps: readonly Dependency[], uid: number, key: string): boolean {
  return deps.some((d) => d.source.uid === uid && d.keys !== undefined && d.keys.includes(key));
}

function holdsIndexKey(deps: readonly Dependency[], uid: number, indexUid: number, key: string): boolean {
  return deps.some((d) => d.source.uid === uid && d.index?.handle.uid === indexUid && d.index.key === key);
}

function holdsScan(deps: readonly Dependency[], uid: number): boolean {
  return deps.some((d) => d.source.uid === uid && d.keys === undefined && d.index === undefined);
}

function addTo(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (s === undefined) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  if (s === undefined) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

function* mapIter<A, B>(it: Iterable<A>, f: (a: A) => B): IterableIterator<B> {
  for (const a of it) yield f(a);
}
