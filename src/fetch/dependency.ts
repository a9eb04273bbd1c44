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

function isMany(d: DepList): d is readonly Dependency[] {
  return Array.isArray(d);
}

/**
 * Every dependency has all fields from construction, in one order: V8 then gives every record one hidden
 * class, and `matches` (run for each candidate of each event) stays monomorphic. Adding fields as filters
 * appear made a different shape per filter combination, and building them was a tenth of a recompute.
 */
class DependencyRecord implements Dependency {
  keys: readonly string[] | undefined = undefined;
  indexHandle: IndexHandle<unknown> | undefined = undefined;
  indexKey: string | undefined = undefined;
  labels: Labels | undefined = undefined;
  selects: Labels | undefined = undefined;
  selectsNonEmpty: Labels | undefined = undefined;
  generic: ((o: unknown) => boolean) | undefined = undefined;
  suppress: ((a: unknown, b: unknown) => boolean) | undefined = undefined;

  constructor(public source: InternalCollection<unknown>) {}
}

/**
 * Filters are parsed into this one record first. It is only read and copied, never handed out, and parsing
 * runs no user code, so nothing can re-enter while it is in use.
 */
const parsed = new DependencyRecord(undefined as unknown as InternalCollection<unknown>);

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
  if (previous.source !== source || previous.indexHandle !== handle || previous.indexKey !== key) return false;
  if (previous.keys !== undefined || previous.suppress !== undefined || filters.length > 1) return false;
  const p = previous;
  if (filters.length === 0) return p.labels === undefined && p.selects === undefined && p.selectsNonEmpty === undefined && p.generic === undefined;
  const f = filters[0]!;
  switch (f.kind) {
    case 'labels':
      return p.labels === f.labels && p.selects === undefined && p.selectsNonEmpty === undefined && p.generic === undefined;
    case 'selects':
      return p.selects === f.labels && p.labels === undefined && p.selectsNonEmpty === undefined && p.generic === undefined;
    case 'selectsNonEmpty':
      return p.selectsNonEmpty === f.labels && p.labels === undefined && p.selects === undefined && p.generic === undefined;
    case 'generic':
      return p.generic === f.predicate && p.labels === undefined && p.selects === undefined && p.selectsNonEmpty === undefined;
    default:
      return false;
  }
}

function start(source: InternalCollection<unknown>): DependencyRecord {
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
  const out = new DependencyRecord(d.source);
  out.keys = d.keys;
  out.indexHandle = d.indexHandle;
  out.indexKey = d.indexKey;
  out.labels = d.labels;
  out.selects = d.selects;
  out.selectsNonEmpty = d.selectsNonEmpty;
  out.generic = d.generic;
  out.suppress = d.suppress;
  release(d);
  return out;
}

/** Drops the scratch record's references, so that it never keeps a disposed graph alive. */
function release(d: DependencyRecord): void {
  d.source = undefined as unknown as InternalCollection<unknown>;
  d.keys = d.indexHandle = d.indexKey = d.labels = d.selects = d.selectsNonEmpty = d.generic = d.suppress = undefined;
}

/** Whether two records select the same objects and treat changes alike (label maps compared by identity). */
function sameRecord(a: Dependency, b: Dependency): boolean {
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

function applyFilter(d: DependencyRecord, f: FetchFilter): void {
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

function setIndex(d: DependencyRecord, handle: IndexHandle<unknown>, key: string): void {
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
  if (dep.selects !== undefined && !isSubset(selector, dep.selects)) return false;
  if (dep.selectsNonEmpty !== undefined && !selectsNonEmpty(selector, dep.selectsNonEmpty)) return false;
  if (dep.labels !== undefined && !isSubset(dep.labels, labelsOf(o))) return false;
  if (dep.generic !== undefined && !dep.generic(o)) return false;
  return true;
}

/**
 * @internal Whether `o` passes the dependency's filters. With `prefiltered`, the key and index filters are
 * taken as already satisfied (the object came from a key or index lookup).
 */
export function matches(dep: Dependency, o: unknown, prefiltered: boolean): boolean {
  if (!prefiltered) {
    if (dep.keys !== undefined && !dep.keys.includes(dep.source.keyOf(o))) return false;
    if (dep.indexHandle !== undefined && !dep.indexHandle.extract(o).includes(dep.indexKey!)) return false;
  }
  // The selector is read only when a selector filter needs it (it may run the object's getLabelSelector).
  return matchesFiledBy(dep, o, dep.selects === undefined && dep.selectsNonEmpty === undefined ? NO_SELECTOR : selectorOf(o));
}

/** Stands in for the selector of an object when no selector filter reads it. */
const NO_SELECTOR: Labels = Object.freeze({});
