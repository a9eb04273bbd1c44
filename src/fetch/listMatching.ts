// The read half of a fetch: the objects a dependency selects, found through keys, an index group or a selector lookup.
import { DependencyRecord, matches, matchesFiledBy, type Dependency } from '../engine/derived/dependency.js';
import { CandidateList } from '../engine/indexes/candidateList.js';

/**
 * @internal The objects a dependency selects, as a fresh array. A record reused by a rerun (the same fetch
 * with the same filters, see `buildDependency`) remembers what it found: while its collection's state has
 * not changed since, the same filters find the same objects, and the rerun of an input whose own value
 * changed (the common case) copies that instead of asking the index and testing selectors again. A generic
 * predicate is the user's code, which may read more than the object: a record with one always searches.
 * Only results of a few objects are remembered (see MAX_REMEMBERED).
 */
export function listMatching(dep: Dependency): unknown[] {
  if (!(dep instanceof DependencyRecord)) return findMatching(dep);
  const version = dep.source.stateVersion;
  if (dep.foundAt === version) return copyOf(dep.found);
  const found = findMatching(dep);
  if (found.length <= MAX_REMEMBERED && (dep.rare === undefined || dep.rare.generic === undefined)) {
    dep.found = found.length === 0 ? NOTHING_FOUND : found.length === 1 && !Array.isArray(found[0]) ? found[0] : found.slice();
    dep.foundAt = version;
  } else if (dep.foundAt !== -1) {
    dep.found = undefined;
    dep.foundAt = -1;
  }
  return found;
}

/**
 * @internal The objects a one-off record selects, as a fresh array, remembering nothing: for records that no
 * rerun will hand back (a list outside a transform, a `partialFetch`, whose change test is a fresh closure
 * each time), where a remembered copy would only be garbage.
 */
export function listMatchingOnce(dep: Dependency): unknown[] {
  return findMatching(dep);
}

/**
 * The most objects a record remembers. A large result is found afresh each time: copying it would cost about
 * as much as finding it, and every input that fetched it would keep its own copy alive (B3's 500 policies, each
 * reading thousands of pods of a collection that changes between their reruns, paid for both).
 */
const MAX_REMEMBERED = 4;

/** Stands for an empty result in `DependencyRecord.found`. */
const NOTHING_FOUND: object = Object.freeze({});

function copyOf(found: unknown): unknown[] {
  if (found === NOTHING_FOUND) return [];
  return Array.isArray(found) ? found.slice() : [found];
}

/**
 * The objects a dependency selects, without copying the collection. Most fetches find zero or one object
 * (the service of a pod, the config of a namespace), and `[]` then `push` would give each such result a
 * backing store of many slots: the first match waits in a local and the array is built once it is known.
 */
function findMatching(dep: Dependency): unknown[] {
  // The collecting loop is written out in each branch on purpose: with the branches sharing one helper, V8
  // no longer optimizes away the result array of a fetch whose transform only maps it.
  const src = dep.source;
  if (dep.keys !== undefined) {
    let first: unknown = undefined;
    let more: unknown[] | undefined;
    for (const k of dep.keys) {
      const v = src.getKey(k);
      if (v === undefined || !matches(dep, v, true)) continue;
      if (first === undefined) first = v;
      else if (more === undefined) more = [first, v];
      else more.push(v);
    }
    return more !== undefined ? more : first !== undefined ? [first] : [];
  }
  const index = dep.indexHandle;
  const bySelector = dep.selectsNonEmpty ?? dep.selects;
  // A fetch by selector asks the lookup of the index group or the collection for its candidates. The
  // scratch list is in use only while they are tested: `matches` can run a user's `getLabelSelector` or
  // predicate, and a fetch from there finds the list in use and scans.
  const listed = selectorCandidates;
  if (bySelector !== undefined && listed.length === 0) {
    const withEmpty = dep.selectsNonEmpty === undefined;
    const named =
      index !== undefined ? index.selecting(dep.indexKey!, bySelector, withEmpty, listed) : src.selecting(bySelector, withEmpty, listed);
    if (named) {
      try {
        let first: unknown = undefined;
        let more: unknown[] | undefined;
        for (let i = 0; i < listed.length; i++) {
          const v = listed.at(i);
          const selector = listed.selectorAt(i);
          if (!(selector === undefined ? matches(dep, v, true) : matchesFiledBy(dep, v, selector))) continue;
          if (first === undefined) first = v;
          else if (more === undefined) more = [first, v];
          else more.push(v);
        }
        return more !== undefined ? more : first !== undefined ? [first] : [];
      } finally {
        listed.reset();
      }
    }
  }
  return passing(dep, index !== undefined ? index.lookupValues(dep.indexKey!) : src.values());
}

/** Candidates named by a selector lookup (see `IndexHandle.selecting` and `InternalCollection.selecting`). */
const selectorCandidates = new CandidateList<unknown>();

/** The candidates that pass the dependency's value filters (the index filter is already applied). */
function passing(dep: Dependency, candidates: Iterable<unknown>): unknown[] {
  let first: unknown = undefined;
  let more: unknown[] | undefined;
  for (const v of candidates) {
    if (!matches(dep, v, true)) continue;
    if (first === undefined) first = v;
    else if (more === undefined) more = [first, v];
    else more.push(v);
  }
  return more !== undefined ? more : first !== undefined ? [first] : [];
}
