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
  readonly index?: { readonly handle: IndexHandle<unknown>; readonly key: string };
  readonly labels?: Labels;
  readonly selects?: Labels;
  readonly selectsNonEmpty?: Labels;
  readonly generic?: (o: unknown) => boolean;
  /** partialFetch: an update for which this returns true does not count as a change. */
  readonly suppress?: (a: unknown, b: unknown) => boolean;
}

/**
 * Every dependency has all fields from construction, in one order: V8 then gives every record one hidden
 * class, and `matches` (run for each candidate of each event) stays monomorphic. Adding fields as filters
 * appear made a different shape per filter combination, and building them was a tenth of a recompute.
 */
class DependencyRecord implements Dependency {
  keys: readonly string[] | undefined = undefined;
  index: { readonly handle: IndexHandle<unknown>; readonly key: string } | undefined = undefined;
  labels: Labels | undefined = undefined;
  selects: Labels | undefined = undefined;
  selectsNonEmpty: Labels | undefined = undefined;
  generic: ((o: unknown) => boolean) | undefined = undefined;
  suppress: ((a: unknown, b: unknown) => boolean) | undefined;

  constructor(
    readonly source: InternalCollection<unknown>,
    suppress: ((a: unknown, b: unknown) => boolean) | undefined,
  ) {
    this.suppress = suppress;
  }
}

/** @internal Folds filters into a dependency on `source`. */
export function buildDependency(
  source: InternalCollection<unknown>,
  filters: readonly FetchFilter[],
  suppress?: (a: unknown, b: unknown) => boolean,
): Dependency {
  const d = new DependencyRecord(source, suppress);
  for (const f of filters) {
    switch (f.kind) {
      case 'keys':
        d.keys = f.keys;
        break;
      case 'index':
        if (f.index.handle.source !== source) {
          throw new UsageError(
            `filterIndex: index ${JSON.stringify(f.index.handle.name)} belongs to collection ` +
              `${JSON.stringify(f.index.handle.source.name)}, not to ${JSON.stringify(source.name)}`,
          );
        }
        d.index = { handle: f.index.handle, key: f.key };
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
  if (d.keys !== undefined && d.index !== undefined) {
    throw new UsageError(`fetch of ${JSON.stringify(source.name)}: cannot filter by key and by index at once`);
  }
  return d;
}

/**
 * @internal Whether `o` passes the dependency's filters. With `prefiltered`, the key and index filters are
 * taken as already satisfied (the object came from a key or index lookup).
 */
export function matches(dep: Dependency, o: unknown, prefiltered: boolean): boolean {
  if (!prefiltered) {
    if (dep.keys !== undefined && !dep.keys.includes(dep.source.keyOf(o))) return false;
    if (dep.index !== undefined && !dep.index.handle.extract(o).includes(dep.index.key)) return false;
  }
  if (dep.selects !== undefined && !isSubset(selectorOf(o), dep.selects)) return false;
  if (dep.selectsNonEmpty !== undefined && !selectsNonEmpty(selectorOf(o), dep.selectsNonEmpty)) return false;
  if (dep.labels !== undefined && !isSubset(dep.labels, labelsOf(o))) return false;
  if (dep.generic !== undefined && !dep.generic(o)) return false;
  return true;
}
