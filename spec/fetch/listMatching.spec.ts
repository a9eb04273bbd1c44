// White-box: what a fetch finds, and when a record reused by a rerun answers from what it found last time.
import { describe, it, expect, jest } from '@jest/globals';
import {
  filterGeneric,
  filterIndex,
  filterKey,
  filterSelectsNonEmpty,
  newCollection,
  newIndex,
  newStaticCollection,
  partialFetch,
  fetchOrList,
  type FetchFilter,
} from '../../src/index.js';
import { internal, type InternalCollection } from '../../src/engine/internalCollection.js';
import type { DependencyRecord } from '../../src/engine/derived/dependency.js';
import { buildDependency } from '../../src/fetch/buildDependency.js';
import { listMatching, listMatchingOnce } from '../../src/fetch/listMatching.js';
import type { DerivedCollection } from '../../src/engine/derived/derivedCollection.js';
import { service, type Service } from '../helpers/fixtures.js';

const pod = { app: 'a' };

/** Three services, two selecting `app=a`; the collection's selector reads counted. */
function setUp() {
  const services = newStaticCollection<Service>([service('a1', { app: 'a' }), service('b', { app: 'b' }), service('a2', { app: 'a' })]);
  const source = internal(services) as InternalCollection<unknown>;
  const selecting = jest.spyOn(source, 'selecting');
  const names = (found: unknown[]): string[] => (found as Service[]).map((s) => s.metadata.name);
  return { services, source, selecting, names };
}

describe('listMatching', () => {
  it('should answer a reused record from what it found while the collection has not changed, in a fresh array each time', () => {
    const { source, selecting, names } = setUp();
    const dep = buildDependency(source, [filterSelectsNonEmpty(pod)]);
    const first = listMatching(dep);
    expect(names(first)).toEqual(['a1', 'a2']);
    first.pop();
    const second = listMatching(dep);
    expect(second).not.toBe(first);
    expect(names(second)).toEqual(['a1', 'a2']);
    expect(names(listMatching(dep))).toEqual(['a1', 'a2']);
    expect(selecting).toHaveBeenCalledTimes(1);
  });

  it('should search again once the collection changed, also for a change to an object it did not find', () => {
    const { services, source, selecting, names } = setUp();
    const dep = buildDependency(source, [filterSelectsNonEmpty(pod)]);
    expect(names(listMatching(dep))).toEqual(['a1', 'a2']);
    services.updateObject(service('b', { app: 'b', tier: 'x' }));
    expect(names(listMatching(dep))).toEqual(['a1', 'a2']);
    expect(selecting).toHaveBeenCalledTimes(2);
    services.updateObject(service('b', { app: 'a' }));
    expect(names(listMatching(dep))).toEqual(['a1', 'b', 'a2']);
    services.deleteObject('namespace/a1');
    expect(names(listMatching(dep))).toEqual(['b', 'a2']);
    expect(selecting).toHaveBeenCalledTimes(4);
  });

  it('should remember finding nothing, and finding one object, as fresh arrays', () => {
    const { source, names } = setUp();
    const none = buildDependency(source, [filterSelectsNonEmpty({ app: 'z' })]);
    const empty = listMatching(none);
    expect(empty).toEqual([]);
    empty.push('x');
    expect(listMatching(none)).toEqual([]);
    const one = buildDependency(source, [filterKey('namespace/b')]);
    const found = listMatching(one);
    found.length = 0;
    expect(names(listMatching(one))).toEqual(['b']);
  });

  it('should search afresh for a result of more than a few objects, and forget what it found before', () => {
    const many = newStaticCollection<Service>(Array.from({ length: 6 }, (_, i) => service(`s${i}`, { app: 'a' })));
    const source = internal(many) as InternalCollection<unknown>;
    const selecting = jest.spyOn(source, 'selecting');
    const dep = buildDependency(source, [filterSelectsNonEmpty(pod)]);
    expect(listMatching(dep)).toHaveLength(6);
    expect(listMatching(dep)).toHaveLength(6);
    expect(selecting).toHaveBeenCalledTimes(2);
    for (let i = 2; i < 6; i++) many.deleteObject(`namespace/s${i}`);
    expect(listMatching(dep)).toHaveLength(2);
    expect(listMatching(dep)).toHaveLength(2);
    expect(selecting).toHaveBeenCalledTimes(3);
    many.updateObject(service('s2', { app: 'a' }));
    many.updateObject(service('s3', { app: 'a' }));
    many.updateObject(service('s4', { app: 'a' }));
    expect(listMatching(dep)).toHaveLength(5);
    expect((dep as DependencyRecord).foundAt).toBe(-1);
  });

  it('should run a generic predicate at every fetch: it is user code, which may read more than the object', () => {
    const { source, names } = setUp();
    let threshold = 'a1';
    const calls = jest.fn((s: Service) => s.metadata.name <= threshold);
    const dep = buildDependency(source, [filterGeneric(calls) as FetchFilter<never>]);
    expect(names(listMatching(dep))).toEqual(['a1']);
    threshold = 'a2';
    expect(names(listMatching(dep))).toEqual(['a1', 'a2']);
    expect(calls).toHaveBeenCalledTimes(6);
  });

  it('should follow an index group and a derived collection as they change', () => {
    const { services, names } = setUp();
    const named = newCollection(services, (_ctx, s) => ({ ...s, metadata: { ...s.metadata, name: `n-${s.metadata.name}` } }));
    const byApp = newIndex(named, 'app', (s) => [s.spec?.selector?.['app'] ?? '']);
    const dep = buildDependency(internal(named) as InternalCollection<unknown>, [filterIndex(byApp, 'a')]);
    expect(names(listMatching(dep))).toEqual(['n-a1', 'n-a2']);
    services.updateObject(service('a2', { app: 'b' }));
    expect(names(listMatching(dep))).toEqual(['n-a1']);
    services.updateObject(service('c', { app: 'a' }));
    expect(names(listMatching(dep))).toEqual(['n-a1', 'n-c']);
  });

  it('should remember nothing for a one-off record, which no rerun hands back', () => {
    const { source, selecting, names } = setUp();
    const dep = buildDependency(source, [filterSelectsNonEmpty(pod)]) as DependencyRecord;
    expect(names(listMatchingOnce(dep))).toEqual(['a1', 'a2']);
    expect(names(listMatchingOnce(dep))).toEqual(['a1', 'a2']);
    expect(selecting).toHaveBeenCalledTimes(2);
    expect(dep.foundAt).toBe(-1);
    expect(dep.found).toBeUndefined();
  });

  it('should keep no copy in the records of a partialFetch, whose rerun builds a new record', () => {
    const { services, selecting } = setUp();
    const pods = newStaticCollection([{ metadata: { name: 'p', namespace: 'namespace' }, app: 'a' }]);
    const derived = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      selectors: partialFetch(ctx, services, (s) => s.spec?.selector, filterSelectsNonEmpty({ app: p.app })),
    }));
    expect(derived.getKey('namespace/p')?.selectors).toEqual([{ app: 'a' }, { app: 'a' }]);
    const node = internal(derived) as unknown as DerivedCollection<unknown, unknown>;
    const [record] = node.dependencyIndex().depsOf('namespace/p') as DependencyRecord[];
    expect(record!.suppress).toBeDefined();
    expect(record!.foundAt).toBe(-1);
    pods.updateObject({ metadata: { name: 'p', namespace: 'namespace' }, app: 'a' });
    const [rerun] = node.dependencyIndex().depsOf('namespace/p') as DependencyRecord[];
    expect(rerun).not.toBe(record);
    expect(rerun!.foundAt).toBe(-1);
    expect(selecting).toHaveBeenCalledTimes(2);
  });

  it('should list outside a transform afresh each time', () => {
    const { services, selecting } = setUp();
    expect(fetchOrList(undefined, services, filterSelectsNonEmpty(pod))).toHaveLength(2);
    expect(fetchOrList(undefined, services, filterSelectsNonEmpty(pod))).toHaveLength(2);
    expect(selecting).toHaveBeenCalledTimes(2);
  });
});
