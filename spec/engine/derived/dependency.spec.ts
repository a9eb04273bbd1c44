// White-box: how a stored dependency matches objects, and how dependency lists combine.
import { describe, it, expect } from '@jest/globals';
import {
  filterGeneric,
  filterIndex,
  filterKey,
  filterKeys,
  filterLabel,
  filterSelects,
  newIndex,
  newStaticCollection,
} from '../../../src/index.js';
import { internal, type InternalCollection } from '../../../src/engine/internalCollection.js';
import { depArray, depUnion, matches } from '../../../src/engine/derived/dependency.js';
import { buildDependency } from '../../../src/fetch/buildDependency.js';
import { service, type Service } from '../../helpers/fixtures.js';

const services = newStaticCollection<Service>([service('a', { app: 'a' }), service('b', { app: 'b' })]);
const source = internal(services) as InternalCollection<unknown>;
const byName = newIndex(services, 'byName', (s) => [s.metadata.name]);

const isA = (o: unknown): boolean => (o as Service).metadata.name === 'a';
const labels = { app: 'a' };

describe('matches', () => {
  const a = services.getKey('namespace/a')!;
  const b = services.getKey('namespace/b')!;

  it('should apply the rare filters as well as the common ones', () => {
    const d = buildDependency(source, [filterIndex(byName, 'a'), filterSelects({ app: 'a', tier: 'web' })]);
    expect(matches(d, a, false)).toBe(true);
    expect(matches(d, b, false)).toBe(false);
    expect(matches(buildDependency(source, [filterGeneric(isA)]), b, false)).toBe(false);
    expect(matches(buildDependency(source, [filterLabel({ app: 'a' })]), a, false)).toBe(false);
    expect(matches(buildDependency(source, [filterKeys('namespace/b')]), a, false)).toBe(false);
    expect(matches(buildDependency(source, [filterKeys('namespace/b')]), a, true)).toBe(true);
  });
});

describe('depUnion', () => {
  it("should keep the first list's records ahead of the second's, and hand back a list when the other is empty", () => {
    const x = buildDependency(source, [filterKey('namespace/a')]);
    const y = buildDependency(source, [filterKey('namespace/b')]);
    const z = buildDependency(source, [filterLabel(labels)]);
    expect(depUnion(undefined, undefined)).toBeUndefined();
    expect(depUnion(x, undefined)).toBe(x);
    expect(depUnion(undefined, y)).toBe(y);
    expect(depArray(depUnion(x, y))).toEqual([x, y]);
    expect(depArray(depUnion([x, y], z))).toEqual([x, y, z]);
  });
});
