// White-box: what a fetch records, how it is stored, and when a rerun reuses the last run's record.
import { describe, it, expect } from '@jest/globals';
import {
  filterGeneric,
  filterIndex,
  filterKey,
  filterKeys,
  filterLabel,
  filterSelects,
  filterSelectsNonEmpty,
  newIndex,
  newStaticCollection,
  type FetchFilter,
} from '../../src/index.js';
import { internal, type IndexHandle, type InternalCollection } from '../../src/engine/internalCollection.js';
import type { Dependency } from '../../src/engine/derived/dependency.js';
import { buildDependency, buildIndexedDependency } from '../../src/fetch/buildDependency.js';
import { service, type Service } from '../helpers/fixtures.js';

const services = newStaticCollection<Service>([service('a', { app: 'a' }), service('b', { app: 'b' })]);
const source = internal(services) as InternalCollection<unknown>;
const byName = newIndex(services, 'byName', (s) => [s.metadata.name]);
const handle = (byName as unknown as { handle: IndexHandle<unknown> }).handle;

const isA = (o: unknown): boolean => (o as Service).metadata.name === 'a';
const labels = { app: 'a' };

/** Every field of the Dependency interface, read through it. */
function fields(d: Dependency): Record<string, unknown> {
  return {
    source: d.source,
    keys: d.keys,
    indexHandle: d.indexHandle,
    indexKey: d.indexKey,
    labels: d.labels,
    selects: d.selects,
    selectsNonEmpty: d.selectsNonEmpty,
    generic: d.generic,
    suppress: d.suppress,
  };
}

const none = {
  source,
  keys: undefined,
  indexHandle: undefined,
  indexKey: undefined,
  labels: undefined,
  selects: undefined,
  selectsNonEmpty: undefined,
  generic: undefined,
  suppress: undefined,
};

describe('buildDependency', () => {
  it('should report each filter through the field it sets, and leave the others undefined', () => {
    const suppress = (): boolean => true;
    const cases: Array<[FetchFilter[], Partial<Record<keyof typeof none, unknown>>]> = [
      [[], {}],
      [[filterKey('namespace/a')], { keys: ['namespace/a'] }],
      [[filterKeys('namespace/a', 'namespace/b')], { keys: ['namespace/a', 'namespace/b'] }],
      [[filterIndex(byName, 'a')], { indexHandle: handle, indexKey: 'a' }],
      [[filterLabel(labels)], { labels }],
      [[filterSelects(labels)], { selects: labels }],
      [[filterSelectsNonEmpty(labels)], { selectsNonEmpty: labels }],
      [[filterGeneric(isA)], { generic: isA }],
      [
        [filterIndex(byName, 'a'), filterLabel(labels), filterSelects(labels), filterSelectsNonEmpty(labels), filterGeneric(isA)],
        { indexHandle: handle, indexKey: 'a', labels, selects: labels, selectsNonEmpty: labels, generic: isA },
      ],
    ];
    for (const [filters, expected] of cases) {
      expect(fields(buildDependency(source, filters))).toEqual({ ...none, ...expected });
      expect(fields(buildDependency(source, filters, suppress))).toEqual({ ...none, ...expected, suppress });
    }
  });

  it('should keep a record in seven fields, whatever filters it holds: five for the filters (the rare ones in one side object), two for what it last found', () => {
    const plain = buildDependency(source, [filterIndex(byName, 'a'), filterSelectsNonEmpty(labels)]);
    const all = buildDependency(
      source,
      [filterIndex(byName, 'a'), filterLabel(labels), filterSelects(labels), filterGeneric(isA)],
      () => true,
    );
    expect(Object.keys(plain)).toHaveLength(7);
    expect(Object.keys(all)).toEqual(Object.keys(plain));
    // Nothing rare: no side object at all; nothing found yet.
    expect(Object.values(plain).filter((v) => v !== undefined)).toEqual([source, handle, 'a', labels, -1]);
  });

  it('should refuse a key filter and an index filter in one fetch, naming the collection', () => {
    expect(() => buildDependency(source, [filterKey('namespace/a'), filterIndex(byName, 'a')])).toThrow(
      /fetch of ".*": cannot filter by key and by index at once/,
    );
  });

  it("should hand back the last run's record when a rerun fetches with the same filters, and a new one otherwise", () => {
    const first = buildDependency(source, [filterKey('namespace/a'), filterLabel(labels)]);
    expect(buildDependency(source, [filterKey('namespace/a'), filterLabel(labels)], undefined, first)).toBe(first);
    expect(buildDependency(source, [filterKey('namespace/a'), filterLabel({ app: 'a' })], undefined, first)).not.toBe(first);
    expect(buildDependency(source, [filterKey('namespace/b'), filterLabel(labels)], undefined, first)).not.toBe(first);
  });
});

describe('buildIndexedDependency', () => {
  const oneFilter: FetchFilter[][] = [
    [],
    [filterLabel(labels)],
    [filterSelects(labels)],
    [filterSelectsNonEmpty(labels)],
    [filterGeneric(isA)],
  ];

  it('should record what fetch with filterIndex records', () => {
    for (const filters of [...oneFilter, [filterLabel(labels), filterGeneric(isA)]]) {
      expect(fields(buildIndexedDependency(source, handle, 'a', filters))).toEqual(
        fields(buildDependency(source, [filterIndex(byName, 'a'), ...filters])),
      );
    }
  });

  it('should reuse the previous record for the same index key and filter, of every kind', () => {
    for (const filters of oneFilter) {
      const first = buildIndexedDependency(source, handle, 'a', filters);
      expect(buildIndexedDependency(source, handle, 'a', filters, first)).toBe(first);
      expect(buildIndexedDependency(source, handle, 'b', filters, first)).not.toBe(first);
      // Every other single filter: a different record.
      for (const other of oneFilter)
        if (other !== filters) expect(buildIndexedDependency(source, handle, 'a', other, first)).not.toBe(first);
    }
  });

  it('should refuse an index of another collection, with no filter or one selector filter as with any other', () => {
    const other = internal(newStaticCollection<Service>([])) as InternalCollection<unknown>;
    for (const filters of [[], [filterSelectsNonEmpty(labels)], [filterLabel(labels)]]) {
      expect(() => buildIndexedDependency(other, handle, 'a', filters)).toThrow(/belongs to collection/);
    }
  });

  it('should not reuse a record of a partialFetch (it suppresses updates) for a plain fetch', () => {
    const partial = buildDependency(source, [filterIndex(byName, 'a')], () => true);
    expect(buildIndexedDependency(source, handle, 'a', [], partial)).not.toBe(partial);
  });
});
