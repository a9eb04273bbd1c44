// A dependency: one fetch's (collection, filters), and the predicate that decides whether a change matters.
import type { InternalCollection, IndexHandle } from '../core/internal.js';
import { isSubset, labelsOf, selectorOf, selectsNonEmpty, type Labels } from '../core/labels.js';
import { UsageError } from '../core/errors.js';
import type { FetchFilter } from './filters.js';

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
  readonly generic?: (o: unknown) => boolean;
  /** partialFetch: an update for which this returns true does not count as a change. */
  readonly suppress?: (a: unknown, b: unknown) => boolean;
  /** Where a stored record keeps `labels`, `selects`, `generic` and `suppress` (undefined: none of them is set). */
  readonly rare?: RareFilters;
}

/**
 * @internal What one transform run fetched, in order: nothing, one record, or an array of two or more. Most
 * transforms fetch once, and an input keeps its list as long as it lives: a one-element array would cost 56
 * bytes and a cache line per input for nothing.
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
 * keeps its records as long as it lives, and a field each would cost a 100k-input collection 0.8 MB per filter.
 */
export interface RareFilters {
  readonly labels: Labels | undefined;
  readonly selects: Labels | undefined;
  readonly generic: ((o: unknown) => boolean) | undefined;
  readonly suppress: ((a: unknown, b: unknown) => boolean) | undefined;
}

/**
 * A stored dependency: five fields, set in one order by one constructor, so every record has one hidden
 * class and `matches` (run for each candidate of each event) stays monomorphic. A key filter and an index
 * filter never come together (`finish` refuses them), so the keys and the index key share a field; the
 * filter a pod's fetch of the services selecting it uses has its own, and the rest wait in `rare`.
 */
class DependencyRecord implements Dependency {
  constructor(
    readonly source: InternalCollection<unknown>,
    readonly indexHandle: IndexHandle<unknown> | undefined,
    /** The index key when `indexHandle` is set, else the key filter's keys (or undefined). */
    private readonly narrowedTo: readonly string[] | string | undefined,
    readonly selectsNonEmpty: Labels | undefined,
    readonly rare: RareFilters | undefined,
  ) {}

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
  get generic(): ((o: unknown) => boolean) | undefined {
    return this.rare?.generic;
  }
  get suppress(): ((a: unknown, b: unknown) => boolean) | undefined {
    return this.rare?.suppress;
  }
}

/** Filters as they are parsed, before they become a record: one field each (not a Dependency: it has no `rare`). */
class ParsedFilters {
  source: InternalCollection<unknown> = undefined as unknown as InternalCollection<unknown>;
  keys: readonly string[] | undefined = undefined;
  indexHandle: IndexHandle<unknown> | undefined = undefined;
  indexKey: string | undefined = undefined;
  labels: Labels | undefined = undefined;
  selects: Labels | undefined = undefined;
  selectsNonEmpty: Labels | undefined = undefined;
  generic: ((o: unknown) => boolean) | undefined = undefined;
  suppress: ((a: unknown, b: unknown) => boolean) | undefined = undefined;
}

/**
 * Filters are parsed into this one object first. It is only read and copied, never handed out, and parsing
 * runs no user code, so nothing can re-enter while it is in use.
 */
const parsed = new ParsedFilters();

/**
 * @internal Folds filters into a dependency on `source`. When `previous` (what the same fetch of the last
 * run recorded) has exactly the same filters, it is returned instead of a new record: a rerun that fetches
 * what it fetched before allocates nothing for its dependencies.
 */
export function buildDependency(
  source: InternalCollection<unknown>,
  filters: readonly FetchFilter[],
  suppress?: (a: unknown, b: unknown) => boolean,
  previous?: Dependency,
): Dependency {
  const d = start(source);
  d.suppress = suppress;
  for (const f of filters) applyFilter(d, f);
  return finish(previous);
}

/**
 * @internal `buildDependency` for a fetch through an index (`Index.fetch`): the index filter is applied
 * from its parts, without a filter object or a spread of the caller's filters.
 */
export function buildIndexedDependency(
  source: InternalCollection<unknown>,
  handle: IndexHandle<unknown>,
  key: string,
  filters: readonly FetchFilter[],
  previous?: Dependency,
): Dependency {
  if (previous !== undefined && repeatsIndexed(previous, source, handle, key, filters)) return previous;
  const d = start(source);
  setIndex(d, handle, key);
  for (const f of filters) applyFilter(d, f);
  return finish(previous);
}

/**
 * Whether `previous` is what `Index.fetch(ctx, key, ...filters)` would record, for the common fetch through
 * an index with at most one other filter: the rerun of an input (its pod's IP changed) then checks a few
 * fields instead of folding the filters into the scratch record and comparing all of them. Anything else
 * answers false and takes the general path, which gives the same record.
 */
function repeatsIndexed(
  previous: Dependency,
  source: InternalCollection<unknown>,
  handle: IndexHandle<unknown>,
  key: string,
  filters: readonly FetchFilter[],
): boolean {
  if (previous.source !== source || previous.indexHandle !== handle || previous.indexKey !== key || filters.length > 1) return false;
  const rare = previous.rare;
  if (filters.length === 0) return rare === undefined && previous.selectsNonEmpty === undefined;
  const f = filters[0]!;
  switch (f.kind) {
    case 'selectsNonEmpty':
      return previous.selectsNonEmpty === f.labels && rare === undefined;
    case 'labels':
      return rare !== undefined && rare.labels === f.labels && rare.selects === undefined && rare.generic === undefined && rare.suppress === undefined && previous.selectsNonEmpty === undefined;
    case 'selects':
      return rare !== undefined && rare.selects === f.labels && rare.labels === undefined && rare.generic === undefined && rare.suppress === undefined && previous.selectsNonEmpty === undefined;
    case 'generic':
      return rare !== undefined && rare.generic === f.predicate && rare.labels === undefined && rare.selects === undefined && rare.suppress === undefined && previous.selectsNonEmpty === undefined;
    default:
      return false;
  }
}

function start(source: InternalCollection<unknown>): ParsedFilters {
  const d = parsed;
  release(d);
  d.source = source;
  return d;
}

function finish(previous: Dependency | undefined): Dependency {
  const d = parsed;
  if (d.keys !== undefined && d.indexHandle !== undefined) {
    throw new UsageError(`fetch of ${JSON.stringify(d.source.name)}: cannot filter by key and by index at once`);
  }
  if (previous !== undefined && sameRecord(previous, d)) {
    release(d);
    return previous;
  }
  const rare =
    d.labels === undefined && d.selects === undefined && d.generic === undefined && d.suppress === undefined
      ? undefined
      : { labels: d.labels, selects: d.selects, generic: d.generic, suppress: d.suppress };
  const out = new DependencyRecord(d.source, d.indexHandle, d.indexHandle !== undefined ? d.indexKey : d.keys, d.selectsNonEmpty, rare);
  release(d);
  return out;
}

/** Drops the scratch record's references, so that it never keeps a disposed graph alive. */
function release(d: ParsedFilters): void {
  d.source = undefined as unknown as InternalCollection<unknown>;
  d.keys = d.indexHandle = d.indexKey = d.labels = d.selects = d.selectsNonEmpty = d.generic = d.suppress = undefined;
}

/** Whether two records select the same objects and treat changes alike (label maps compared by identity). */
function sameRecord(a: Dependency, b: ParsedFilters): boolean {
  return (
    a.source === b.source &&
    sameKeys(a.keys, b.keys) &&
    a.indexHandle === b.indexHandle &&
    a.indexKey === b.indexKey &&
    a.labels === b.labels &&
    a.selects === b.selects &&
    a.selectsNonEmpty === b.selectsNonEmpty &&
    a.generic === b.generic &&
    a.suppress === b.suppress
  );
}

/** @internal Whether two key filters name the same keys in the same order (undefined: no key filter). */
export function sameKeys(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function applyFilter(d: ParsedFilters, f: FetchFilter): void {
  switch (f.kind) {
    case 'keys':
      d.keys = f.keys;
      break;
    case 'index':
      setIndex(d, f.index.handle, f.key);
      break;
    case 'labels':
      d.labels = f.labels;
      break;
    case 'selects':
      d.selects = f.labels;
      break;
    case 'selectsNonEmpty':
      d.selectsNonEmpty = f.labels;
      break;
    case 'generic':
      d.generic = f.predicate;
      break;
  }
}

function setIndex(d: ParsedFilters, handle: IndexHandle<unknown>, key: string): void {
  if (handle.source !== d.source) {
    throw new UsageError(
      `filterIndex: index ${JSON.stringify(handle.name)} belongs to collection ` +
        `${JSON.stringify(handle.source.name)}, not to ${JSON.stringify(d.source.name)}`,
    );
  }
  d.indexHandle = handle;
  d.indexKey = key;
}

/**
 * @internal `matches(dep, o, true)` with `selector` in place of `selectorOf(o)`: for an object a selector
 * lookup named, whose selector the lookup read when it filed the object.
 */
export function matchesFiledBy(dep: Dependency, o: unknown, selector: Labels): boolean {
  if (dep.selectsNonEmpty !== undefined && !selectsNonEmpty(selector, dep.selectsNonEmpty)) return false;
  const rare = dep.rare;
  if (rare === undefined) return true;
  if (rare.selects !== undefined && !isSubset(selector, rare.selects)) return false;
  if (rare.labels !== undefined && !isSubset(rare.labels, labelsOf(o))) return false;
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
 * `selectorOf(o)` as the caller already read it.
 */
export function matches(dep: Dependency, o: unknown, prefiltered: boolean, selector?: Labels): boolean {
  if (!prefiltered) {
    if (dep.keys !== undefined && !dep.keys.includes(dep.source.keyOf(o))) return false;
    if (dep.indexHandle !== undefined && !dep.indexHandle.extract(o).includes(dep.indexKey!)) return false;
  }
  // The selector is read only when a selector filter needs it (it may run the object's getLabelSelector).
  return matchesFiledBy(dep, o, readsSelector(dep) ? (selector ?? selectorOf(o)) : NO_SELECTOR);
}

/** Stands in for the selector of an object when no selector filter reads it. */
const NO_SELECTOR: Labels = Object.freeze({});
