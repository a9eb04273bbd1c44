// A secondary index over one collection's state, updated in the same step as the state itself.
import type { IndexHandle, InternalCollection } from '../internalCollection.js';
import type { Labels } from '../../core/labels.js';
import type { CandidateList } from './candidateList.js';
import { SELECTOR_LOOKUP_MIN_SIZE, SelectorLookup } from './selectorLookup.js';

let nextIndexUid = 1;
const NONE: readonly string[] = [];

/** @internal indexKey → (objectKey → object), maintained by the owning collection on every state write. */
export class IndexState<T> implements IndexHandle<T> {
  readonly uid = nextIndexUid++;
  private readonly groups = new Map<string, Map<string, T>>();
  /** Selector lookups of the groups that were fetched by selector once they were large enough; built on
   * first use, kept in step by `update` from then on, dropped with their group. */
  private lookups: Map<string, SelectorLookup<T>> | undefined;

  constructor(
    readonly name: string,
    readonly source: InternalCollection<T>,
    // The user's function: from plain JavaScript it may return nothing.
    private readonly extractFn: (o: T) => readonly string[] | null | undefined,
    private readonly onError: (e: unknown, o: T) => void,
  ) {
    for (const v of source.values()) this.update(source.keyOf(v), undefined, v);
  }

  /** The index keys of `o`; an extract function that throws files the object under no key (and is reported). */
  extract(o: T): readonly string[] {
    // A two-entry memo: change detection asks for the keys of an event's old and new objects (immutable) in
    // turn, once per candidate input, e.g. a service change checked against the 1000 pods of its namespace.
    // With one entry the two evicted each other, and every candidate ran the extract function twice.
    if (o === this.lastObject && o !== undefined) return this.lastKeys;
    if (o === this.otherObject && o !== undefined) return this.otherKeys;
    let keys: readonly string[];
    try {
      keys = this.extractFn(o) ?? NONE;
    } catch (e) {
      this.onError(e, o);
      return NONE;
    }
    if (typeof o === 'object' && o !== null) {
      this.otherObject = this.lastObject;
      this.otherKeys = this.lastKeys;
      this.lastObject = o;
      this.lastKeys = keys;
    }
    return keys;
  }

  private lastObject: T | undefined = undefined;
  private lastKeys: readonly string[] = NONE;
  private otherObject: T | undefined = undefined;
  private otherKeys: readonly string[] = NONE;

  get size(): number {
    return this.groups.size;
  }

  lookupValues(key: string): Iterable<T> {
    return this.groups.get(key)?.values() ?? NONE_ITER;
  }

  selecting(key: string, labels: Labels, withEmpty: boolean, out: CandidateList<T>): boolean {
    let lookup = this.lookups?.get(key);
    if (lookup === undefined) {
      const g = this.groups.get(key);
      if (g === undefined || g.size < SELECTOR_LOOKUP_MIN_SIZE) return false;
      lookup = new SelectorLookup<T>();
      for (const [k, v] of g) lookup.set(k, v);
      (this.lookups ??= new Map()).set(key, lookup);
    }
    lookup.candidates(labels, withEmpty, out);
    return true;
  }

  /** Strict mode: what is wrong with a group's selector lookup, or undefined. */
  inconsistency(): string | undefined {
    if (this.lookups === undefined) return undefined;
    for (const [key, lookup] of this.lookups) {
      const g = this.groups.get(key);
      if (g === undefined) return `index ${JSON.stringify(this.name)} keeps a selector lookup for the gone group ${JSON.stringify(key)}`;
      const bad = lookup.inconsistency(g);
      if (bad !== undefined) return `index ${JSON.stringify(this.name)}, group ${JSON.stringify(key)}: ${bad}`;
    }
    return undefined;
  }

  keys(): Iterable<string> {
    return this.groups.keys();
  }

  /** Moves one object between groups. */
  update(objectKey: string, old: T | undefined, next: T | undefined): void {
    const oldKeys = old === undefined ? NONE : this.extract(old);
    const newKeys = next === undefined ? NONE : this.extract(next);
    for (const k of oldKeys) {
      if (newKeys.includes(k)) continue;
      const g = this.groups.get(k);
      if (g === undefined) continue;
      g.delete(objectKey);
      const lookups = this.lookups;
      if (g.size === 0) {
        this.groups.delete(k);
        lookups?.delete(k);
      } else {
        lookups?.get(k)?.delete(objectKey);
      }
    }
    if (next === undefined) return;
    for (const k of newKeys) {
      let g = this.groups.get(k);
      if (g === undefined) this.groups.set(k, (g = new Map()));
      g.set(objectKey, next);
      this.lookups?.get(k)?.set(objectKey, next);
    }
  }
}

const NONE_ITER: Iterable<never> = [];
