// Folding a fetch's filters into the dependency record the engine stores (or reusing the last run's record).
import type { InternalCollection, IndexHandle } from '../engine/internalCollection.js';
import type { Labels } from '../core/labels.js';
import { compileLabelSelector, type CompiledSelector } from '../core/labelSelector.js';
import { UsageError } from '../core/errors.js';
import { DependencyRecord, sameKeys, type Dependency } from '../engine/derived/dependency.js';
import type { FetchFilter } from './filters.js';

/** Filters as they are parsed, before they become a record: one field each (not a Dependency: it has no `rare`). */
class ParsedFilters {
  source: InternalCollection<unknown> = undefined as unknown as InternalCollection<unknown>;
  keys: readonly string[] | undefined = undefined;
  indexHandle: IndexHandle<unknown> | undefined = undefined;
  indexKey: string | undefined = undefined;
  labels: Labels | undefined = undefined;
  selects: Labels | undefined = undefined;
  selectsNonEmpty: Labels | undefined = undefined;
  labelSelector: CompiledSelector | undefined = undefined;
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
  filters: readonly FetchFilter<never>[],
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
  filters: readonly FetchFilter<never>[],
  previous?: Dependency,
): Dependency {
  if (previous !== undefined && repeatsIndexed(previous, source, handle, key, filters)) return previous;
  // The common first fetch through an index (`selectsNonEmpty` or nothing besides) needs no parse: the record
  // it would fold to is built at once. The index's own collection is `source`, as `fetchIndexed` passes it.
  if (handle.source === source) {
    if (filters.length === 0) return new DependencyRecord(source, handle, key, undefined, undefined);
    const only = filters[0]!;
    if (filters.length === 1 && only.kind === 'selectsNonEmpty') return new DependencyRecord(source, handle, key, only.labels, undefined);
  }
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
  filters: readonly FetchFilter<never>[],
): boolean {
  if (previous.source !== source || previous.indexHandle !== handle || previous.indexKey !== key || filters.length > 1) return false;
  const rare = previous.rare;
  if (filters.length === 0) return rare === undefined && previous.selectsNonEmpty === undefined;
  const f = filters[0]!;
  switch (f.kind) {
    case 'selectsNonEmpty':
      return previous.selectsNonEmpty === f.labels && rare === undefined;
    case 'labels':
      return (
        rare !== undefined &&
        rare.labels === f.labels &&
        rare.selects === undefined &&
        rare.generic === undefined &&
        rare.labelSelector === undefined &&
        rare.suppress === undefined &&
        previous.selectsNonEmpty === undefined
      );
    case 'selects':
      return (
        rare !== undefined &&
        rare.selects === f.labels &&
        rare.labels === undefined &&
        rare.generic === undefined &&
        rare.labelSelector === undefined &&
        rare.suppress === undefined &&
        previous.selectsNonEmpty === undefined
      );
    case 'generic':
      return (
        rare !== undefined &&
        rare.generic === f.predicate &&
        rare.labels === undefined &&
        rare.selects === undefined &&
        rare.labelSelector === undefined &&
        rare.suppress === undefined &&
        previous.selectsNonEmpty === undefined
      );
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
    d.labels === undefined &&
    d.selects === undefined &&
    d.labelSelector === undefined &&
    d.generic === undefined &&
    d.suppress === undefined
      ? undefined
      : { labels: d.labels, selects: d.selects, labelSelector: d.labelSelector, generic: d.generic, suppress: d.suppress };
  const out = new DependencyRecord(d.source, d.indexHandle, d.indexHandle !== undefined ? d.indexKey : d.keys, d.selectsNonEmpty, rare);
  release(d);
  return out;
}

/** Drops the scratch record's references, so that it never keeps a disposed graph alive. */
function release(d: ParsedFilters): void {
  d.source = undefined as unknown as InternalCollection<unknown>;
  d.keys = d.indexHandle = d.indexKey = d.labels = d.selects = d.selectsNonEmpty = d.labelSelector = d.generic = d.suppress = undefined;
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
    a.labelSelector === b.labelSelector &&
    a.generic === b.generic &&
    a.suppress === b.suppress
  );
}

function applyFilter(d: ParsedFilters, f: FetchFilter<never>): void {
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
    case 'labelSelector':
      d.labelSelector = compileLabelSelector(f.selector);
      break;
    case 'generic':
      d.generic = f.predicate as (o: unknown) => boolean; // the collection is of the type the predicate reads (fetch checks it)
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
