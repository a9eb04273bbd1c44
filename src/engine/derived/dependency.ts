// A dependency: what one fetch recorded (collection and filters), and the predicate that decides whether a change matters.
import type { InternalCollection, IndexHandle } from '../internalCollection.js';
import { isSubset, labelsOf, type Labels } from '../../core/labels.js';
import { filedSelects, readSelector, type CompiledSelector, type FiledSelector } from '../../core/labelSelector.js';
import { UsageError } from '../../core/errors.js';

/** @internal What one fetch recorded. */
export interface Dependency {
  readonly source: InternalCollection<unknown>;
  /** undefined: no key filter; empty: matches nothing. */
  readonly keys?: readonly string[];
  /** Index filter: the index and the key looked up in it (both set or both undefined). */
  readonly indexHandle?: IndexHandle<unknown>;
  readonly indexKey?: string;
  readonly labels?: Labels;
  readonly selects?: Labels;
  readonly selectsNonEmpty?: Labels;
  /** `filterLabelSelector`: the objects' labels must meet this selector. */
  readonly labelSelector?: CompiledSelector;
  readonly generic?: (o: unknown) => boolean;
  /** partialFetch: an update for which this returns true does not count as a change. */
  readonly suppress?: (a: unknown, b: unknown) => boolean;
  /** Where a stored record keeps `labels`, `selects`, `generic` and `suppress` (undefined: none of them is set). */
  readonly rare?: RareFilters;
}

/**
 * @internal What one transform run fetched, in order: nothing, one record, or an array of two or more. Most
 * transforms fetch once, and an input keeps its list as long as it lives: a one-element array would cost
 * memory and a cache line per input for nothing.
 */
export type DepList = Dependency | readonly Dependency[] | undefined;

/** @internal How many records a list holds. */
export function depCount(d: DepList): number {
  return d === undefined ? 0 : isMany(d) ? d.length : 1;
}

/** @internal The i-th record of a list (i < depCount). */
export function depAt(d: DepList, i: number): Dependency {
  return isMany(d) ? d[i]! : (d as Dependency);
}

/** @internal A list as an array (for cold paths: dumps, checks, tests). */
export function depArray(d: DepList): readonly Dependency[] {
  return d === undefined ? [] : isMany(d) ? d : [d];
}

/** @internal The list of `n` records built from an array holding at least `n` (a single one unwrapped). */
export function depListOf(records: readonly Dependency[], n: number): DepList {
  if (n === 0) return undefined;
  if (n === 1) return records[0];
  return n === records.length ? records : records.slice(0, n);
}

/** @internal Both lists, `a`'s records first (a failing run depends on its last good run's reads and its own). */
export function depUnion(a: DepList, b: DepList): DepList {
  if (depCount(a) === 0) return b;
  if (depCount(b) === 0) return a;
  return [...depArray(a), ...depArray(b)];
}

function isMany(d: DepList): d is readonly Dependency[] {
  return Array.isArray(d);
}

/**
 * @internal The filters few fetches combine: kept in an object that exists only when one of them is set. Every input
 * keeps its records as long as it lives, and a field each would cost every input memory for filters it lacks.
 */
export interface RareFilters {
  readonly labels: Labels | undefined;
  readonly selects: Labels | undefined;
  readonly labelSelector: CompiledSelector | undefined;
  readonly generic: ((o: unknown) => boolean) | undefined;
  readonly suppress: ((a: unknown, b: unknown) => boolean) | undefined;
}

/**
 * @internal A stored dependency: five fields, set in one order by one constructor, so every record has one hidden
 * class and `matches` (run for each candidate of each event) stays monomorphic. A key filter and an index
 * filter never come together (`finish` refuses them), so the keys and the index key share a field; the
 * filter a pod's fetch of the services selecting it uses has its own, and the rest wait in `rare`.
 */
export class DependencyRecord implements Dependency {
  constructor(
    readonly source: InternalCollection<unknown>,
    readonly indexHandle: IndexHandle<unknown> | undefined,
    /** The index key when `indexHandle` is set, else the key filter's keys (or undefined). */
    private readonly narrowedTo: readonly string[] | string | undefined,
    readonly selectsNonEmpty: Labels | undefined,
    readonly rare: RareFilters | undefined,
  ) {}

  /**
   * What the last fetch through this record found (see `listMatching`): nothing yet when `foundAt` is -1, else
   * NOTHING_FOUND, the one object found, or an array of two or more; `foundAt` is the source's `stateVersion`
   * then. Two fields, not an array per record: every input keeps its records as long as it lives.
   */
  found: unknown = undefined;
  foundAt = -1;

  get keys(): readonly string[] | undefined {
    return this.indexHandle === undefined ? (this.narrowedTo as readonly string[] | undefined) : undefined;
  }
  get indexKey(): string | undefined {
    return this.indexHandle === undefined ? undefined : (this.narrowedTo as string);
  }
  get labels(): Labels | undefined {
    return this.rare?.labels;
  }
  get selects(): Labels | undefined {
    return this.rare?.selects;
  }
  get labelSelector(): CompiledSelector | undefined {
    return this.rare?.labelSelector;
  }
  get generic(): ((o: unknown) => boolean) | undefined {
    return this.rare?.generic;
  }
  get suppress(): ((a: unknown, b: unknown) => boolean) | undefined {
    return this.rare?.suppress;
  }
}

/** @internal Whether two key filters name the same keys in the same order (undefined: no key filter). */
export function sameKeys(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * @internal `matches(dep, o, true)` with `selector` in place of the object's own: for an object a selector
 * lookup named, whose selector the lookup read when it filed the object.
 */
export function matchesFiledBy(dep: Dependency, o: unknown, selector: FiledSelector): boolean {
  if (dep.selectsNonEmpty !== undefined && !filedSelects(selector, dep.selectsNonEmpty, true)) return false;
  const rare = dep.rare;
  if (rare === undefined) return true;
  if (rare.selects !== undefined && !filedSelects(selector, rare.selects, false)) return false;
  if (rare.labels !== undefined && !isSubset(rare.labels, labelsOf(o))) return false;
  if (rare.labelSelector !== undefined && !rare.labelSelector.matches(labelsOf(o))) return false;
  if (rare.generic !== undefined && !rare.generic(o)) return false;
  return true;
}

/** @internal Whether the dependency's filters read the selector of the objects they test. */
export function readsSelector(dep: Dependency): boolean {
  return dep.selectsNonEmpty !== undefined || (dep.rare !== undefined && dep.rare.selects !== undefined);
}

/**
 * @internal Whether `o` passes the dependency's filters. With `prefiltered`, the key and index filters are
 * taken as already satisfied (the object came from a key or index lookup). `selector`, when given, is
 * `selectorIn(dep.source, o)` as the caller already read it.
 */
export function matches(dep: Dependency, o: unknown, prefiltered: boolean, selector?: FiledSelector): boolean {
  if (!prefiltered) {
    if (dep.keys !== undefined && !dep.keys.includes(dep.source.keyOf(o))) return false;
    if (dep.indexHandle !== undefined && !dep.indexHandle.extract(o).includes(dep.indexKey!)) return false;
  }
  // The selector is read only when a selector filter needs it (it may run the object's getLabelSelector).
  return matchesFiledBy(dep, o, readsSelector(dep) ? (selector ?? selectorIn(dep.source, o)) : NO_SELECTOR);
}

/**
 * @internal The selector of `o`, an object of `source`, as the selector filters test it.
 * @throws UsageError for an invalid selector, naming the collection, the object's key and the selector.
 */
export function selectorIn(source: { readonly name: string; keyOf(o: unknown): string }, o: unknown): FiledSelector {
  try {
    return readSelector(o);
  } catch (e) {
    let key: string;
    try {
      key = source.keyOf(o);
    } catch {
      key = '(no key)';
    }
    throw new UsageError(
      `collection ${JSON.stringify(source.name)} object ${JSON.stringify(key)}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/** Stands in for the selector of an object when no selector filter reads it. */
const NO_SELECTOR: Labels = Object.freeze({});
