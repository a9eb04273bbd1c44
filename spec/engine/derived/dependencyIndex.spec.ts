// White-box: the reverse index of a derived collection (krt's dependency_state_test).
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newIndex,
  fetch,
  filterKey,
  filterIndex,
  filterLabel,
  filterSelects,
  filterSelectsNonEmpty,
  filterGeneric,
  collectionStats,
  type Collection,
  type FetchFilter,
} from '../../../src/index.js';
import type { DerivedCollection } from '../../../src/engine/derived/derivedCollection.js';
import type { DependencyIndex } from '../../../src/engine/derived/dependencyIndex.js';
import { captureLog, configMap, pod, subscribers, type ConfigMap, type Pod } from '../../helpers/fixtures.js';

const depsOf = (c: Collection<unknown>): DependencyIndex => (c as unknown as DerivedCollection<unknown, unknown>).dependencyIndex();

describe('DependencyIndex', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should move a key entry when the fetched key changes, and drop it when the input goes (TestCollectionChangingFilterKeyDependency)', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('waypoint-old'), configMap('waypoint-new')]);
    const pods = newStaticCollection<Pod>([pod('p', '1.1.1.1', { waypoint: 'waypoint-old' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      waypoint: fetch(ctx, cms, filterKey(`namespace/${p.metadata.labels?.['waypoint']}`)).map((c) => c.metadata.name)[0],
    }));
    const ix = depsOf(out);
    expect(ix.reverseKeys(cms.uid)).toEqual(['key:namespace/waypoint-old']);
    pods.updateObject(pod('p', '1.1.1.1', { waypoint: 'waypoint-new' }));
    expect(out.getKey('namespace/p')?.waypoint).toBe('waypoint-new');
    expect(ix.reverseKeys(cms.uid)).toEqual(['key:namespace/waypoint-new']);
    pods.deleteObject('namespace/p');
    expect(ix.reverseKeys(cms.uid)).toEqual([]);
    expect(ix.reverseEntryCount()).toBe(0);
    // With no input reading it, the fetched collection is not subscribed to any more.
    expect(ix.uses(cms.uid)).toBe(false);
    expect(subscribers(cms)).toBe(0);
  });

  it('should keep the records of a rerun that fetched the same, and replace only the fetch that changed', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'x' }), configMap('b')]);
    const byTeam = newIndex(cms, 'team', (c) => [c.metadata.labels?.['team'] ?? '']);
    const selector = Object.freeze({ team: 'x' });
    const pods = newStaticCollection<Pod>([pod('p', '1', { cm: 'b' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      n:
        byTeam.fetch(ctx, 'x', filterLabel(selector)).length +
        (p.metadata.labels?.['cm'] === undefined ? 0 : fetch(ctx, cms, filterKey(`namespace/${p.metadata.labels['cm']}`)).length),
    }));
    const ix = depsOf(out);
    const first = ix.depsOf('namespace/p');
    expect(first).toHaveLength(2);
    // Same fetches (the filter objects and key arrays are new, their contents equal): the very same array.
    pods.updateObject(pod('p', '2', { cm: 'b' }));
    expect(ix.depsOf('namespace/p')).toBe(first);
    // The second fetch's key changed: the first record is kept, the second is new, and the index follows.
    pods.updateObject(pod('p', '2', { cm: 'a' }));
    const second = ix.depsOf('namespace/p');
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(ix.reverseKeys(cms.uid)).toEqual(['index:team:x', 'key:namespace/a']);
    expect(out.getKey('namespace/p')?.n).toBe(2);
    // A change seen through the record the rerun kept still recomputes the input.
    cms.updateObject(configMap('c', { team: 'x' }));
    expect(out.getKey('namespace/p')?.n).toBe(3);
    // A run that fetches less keeps a prefix of the last run's records, and the key entry goes.
    pods.updateObject(pod('p', '3'));
    const third = ix.depsOf('namespace/p');
    expect(third).toHaveLength(1);
    expect(third[0]).toBe(first[0]);
    expect(ix.reverseKeys(cms.uid)).toEqual(['index:team:x']);
    expect(out.getKey('namespace/p')?.n).toBe(2);
  });

  it('should reuse the record of an index fetch only when its index key and filters are the very same', () => {
    const cms = newStaticCollection<ConfigMap>([
      configMap('a', { team: 'x', tier: 'web' }),
      configMap('b', { team: 'x' }),
      configMap('c', { team: 'y' }),
    ]);
    const byTeam = newIndex(cms, 'team', (c) => [c.metadata.labels?.['team'] ?? '']);
    const web = Object.freeze({ tier: 'web' });
    const webAgain = Object.freeze({ tier: 'web' });
    const isA = (c: ConfigMap): boolean => c.metadata.name === 'a';
    const isB = (c: ConfigMap): boolean => c.metadata.name === 'b';
    // Each pod label names the fetch its transform makes; the record must follow the filters exactly.
    const fetches: Record<string, () => FetchFilter<ConfigMap>[]> = {
      none: () => [],
      labels: () => [filterLabel(web)],
      labelsAgain: () => [filterLabel(webAgain)],
      selects: () => [filterSelects(web)],
      selectsNonEmpty: () => [filterSelectsNonEmpty(web)],
      generic: () => [filterGeneric(isA)],
      selectsLabels: () => [filterSelects(web), filterLabel(web)],
      labelsB: () => [filterLabel(web), filterGeneric(isB)],
      genericB: () => [filterGeneric(isB)],
      nonEmptyB: () => [filterSelectsNonEmpty(web), filterGeneric(isB)],
    };
    const pods = newStaticCollection<Pod>([pod('p', '1', { f: 'none', team: 'x' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      names: byTeam
        .fetch(ctx, p.metadata.labels!['team']!, ...fetches[p.metadata.labels!['f']!]!())
        .map((c) => c.metadata.name)
        .join(','),
    }));
    const ix = depsOf(out);
    const record = (): unknown => ix.depsOf('namespace/p')[0];
    const steps: Array<[string, string, string, boolean]> = [
      // filter, team, expected names, same record as the step before
      ['none', 'x', 'a,b', true],
      ['labels', 'x', 'a', false],
      ['labels', 'x', 'a', true],
      ['labelsAgain', 'x', 'a', false], // equal labels in another object: compared by identity
      ['selects', 'x', 'a,b', false], // config maps have no selector: empty, which selects everything
      ['selectsNonEmpty', 'x', '', false], // ...and nothing when it must not be empty
      ['generic', 'x', 'a', false],
      ['generic', 'x', 'a', true],
      ['generic', 'y', '', false], // another index key
      ['selectsLabels', 'x', 'a', false],
      ['selectsLabels', 'x', 'a', true], // two filters take the general path, which finds the same record too
      // One filter after a record that had it and another: a new record.
      ['selects', 'x', 'a,b', false],
      ['labelsB', 'x', '', false],
      ['labels', 'x', 'a', false],
      ['labelsB', 'x', '', false],
      ['genericB', 'x', 'b', false],
      ['nonEmptyB', 'x', '', false],
      ['selectsNonEmpty', 'x', '', false],
      ['none', 'x', 'a,b', false],
    ];
    let last = record();
    for (const [f, team, names, same] of steps) {
      pods.updateObject(pod('p', '2', { f, team }));
      expect([f, team, out.getKey('namespace/p')?.names]).toEqual([f, team, names]);
      expect([f, team, record() === last]).toEqual([f, team, same]);
      last = record();
    }
    expect(ix.reverseKeys(cms.uid)).toEqual(['index:team:x']);
    // A key filter in an index fetch is still refused after a run whose record could have been reused.
    pods.updateObject(pod('p', '3', { f: 'none', team: 'x' }));
    fetches['none'] = () => [filterKey('namespace/a')];
    pods.updateObject(pod('p', '4', { f: 'none', team: 'x' }));
    expect(log.lines.some((l) => l.includes('cannot filter by key and by index at once'))).toBe(true);
  });

  it('should keep one fetch as a bare record, and move between none, one and several fetches correctly', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a'), configMap('b')]);
    const pods = newStaticCollection<Pod>([pod('p', '1', { n: '1' })]);
    const out = newCollection(pods, (ctx, p) => {
      const n = Number(p.metadata.labels?.['n'] ?? '0');
      const names = ['a', 'b'].slice(0, n).flatMap((c) => fetch(ctx, cms, filterKey(`namespace/${c}`)));
      return { metadata: p.metadata, seen: names.map((c) => c.metadata.name).join(',') };
    });
    const ix = depsOf(out);
    const stored = (): unknown => (out as unknown as { entries: Map<string, { deps: unknown }> }).entries.get('namespace/p')!.deps;
    expect(Array.isArray(stored())).toBe(false);
    expect(ix.depsOf('namespace/p')).toHaveLength(1);
    for (const [n, seen, keys] of [
      ['2', 'a,b', ['key:namespace/a', 'key:namespace/b']],
      ['0', '', []],
      ['1', 'a', ['key:namespace/a']],
      ['2', 'a,b', ['key:namespace/a', 'key:namespace/b']],
      ['1', 'a', ['key:namespace/a']],
    ] as const) {
      pods.updateObject(pod('p', '1', { n }));
      expect(out.getKey('namespace/p')?.seen).toBe(seen);
      expect(ix.depsOf('namespace/p')).toHaveLength(Number(n));
      expect(ix.reverseKeys(cms.uid)).toEqual(keys);
      expect(Array.isArray(stored())).toBe(n === '2');
    }
    // Still live through the bare record: a change to the one fetched object recomputes the input.
    const before = collectionStats(out).recomputations;
    cms.updateObject(configMap('a', { changed: 'yes' }));
    expect(collectionStats(out).recomputations).toBe(before + 1);
    cms.updateObject(configMap('b', { changed: 'yes' }));
    expect(collectionStats(out).recomputations).toBe(before + 1);
    pods.updateObject(pod('p', '1', { n: '0' }));
    expect(ix.reverseEntryCount()).toBe(0);
    expect(stored()).toBeUndefined();
  });

  it('should keep a key entry as long as one input still uses it', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('shared')]);
    const pods = newStaticCollection<Pod>([pod('a', '1', { cm: 'shared' }), pod('b', '1', { cm: 'shared' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      n: fetch(ctx, cms, filterKey(`namespace/${p.metadata.labels?.['cm']}`)).length,
    }));
    const ix = depsOf(out);
    pods.deleteObject('namespace/a');
    expect(ix.reverseKeys(cms.uid)).toEqual(['key:namespace/shared']);
    cms.deleteObject('namespace/shared');
    expect(out.getKey('namespace/b')?.n).toBe(0);
    pods.updateObject(pod('b', '1', { cm: 'other' }));
    expect(ix.reverseKeys(cms.uid)).toEqual(['key:namespace/other']);
  });

  it('should move an index entry when the fetched index key changes', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'x' })]);
    const byTeam = newIndex(cms, 'team', (c) => [c.metadata.labels?.['team'] ?? '']);
    const pods = newStaticCollection<Pod>([pod('p', '1', { team: 'x' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      n: fetch(ctx, cms, filterIndex(byTeam, p.metadata.labels?.['team'] ?? '')).length,
    }));
    const ix = depsOf(out);
    expect(ix.reverseKeys(cms.uid)).toEqual(['index:team:x']);
    pods.updateObject(pod('p', '1', { team: 'y' }));
    expect(ix.reverseKeys(cms.uid)).toEqual(['index:team:y']);
    expect(out.getKey('namespace/p')?.n).toBe(0);
    cms.updateObject(configMap('b', { team: 'y' }));
    expect(out.getKey('namespace/p')?.n).toBe(1);
    pods.deleteObject('namespace/p');
    expect(ix.reverseKeys(cms.uid)).toEqual([]);
  });

  it('should stop scanning for an input that no longer reads without an index', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a', { app: 'x' })]);
    const pods = newStaticCollection<Pod>([pod('p', '1', { app: 'x' })]);
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      n: fetch(ctx, cms, filterLabel(p.metadata.labels ?? {})).length,
    }));
    const ix = depsOf(out);
    expect(ix.reverseEntryCount()).toBe(1); // one scanned input
    pods.deleteObject('namespace/p');
    expect(ix.reverseEntryCount()).toBe(0);
    expect(out.list()).toEqual([]);
  });

  it('should not pile up dependencies while a transform keeps failing or discarding', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('x', undefined, 'namespace', { v: '0' })]);
    const pods = newStaticCollection<Pod>([pod('p', '1')]);
    const out = newCollection(pods, (ctx, p) => {
      const v = Number(fetch(ctx, cms, filterKey('namespace/x'))[0]?.data?.['v'] ?? '0');
      if (v % 3 === 1) throw new Error('odd state');
      if (v % 3 === 2) ctx.discardResult();
      return { metadata: p.metadata, v };
    });
    for (let i = 1; i <= 60; i++) cms.updateObject(configMap('x', undefined, 'namespace', { v: String(i) }));
    expect(out.getKey('namespace/p')?.v).toBe(60);
    const ix = depsOf(out);
    expect(ix.depsOf('namespace/p').length).toBeLessThanOrEqual(2);
    expect(ix.reverseKeys(cms.uid)).toEqual(['key:namespace/x']);
    cms.updateObject(configMap('x', undefined, 'namespace', { v: '61' }));
    expect(ix.depsOf('namespace/p').length).toBeLessThanOrEqual(2);
    expect(out.getKey('namespace/p')?.v).toBe(60);
  });

  it("should read an event's selectors once per event, not once per input it tests", () => {
    let reads = 0;
    // A service whose selector counts its reads (an accessor survives freezing).
    const counted = (name: string, selector: Record<string, string>) => ({
      metadata: { name, namespace: 'namespace' },
      get spec() {
        reads++;
        return { selector };
      },
    });
    // Eight services: the namespace group answers fetches from its selector lookup, which files selectors once.
    const services = newStaticCollection([
      counted('web', { app: 'web' }),
      ...Array.from({ length: 7 }, (_, i) => counted(`s${i}`, { app: `s${i}` })),
    ]);
    const byNs = newIndex(services, 'ns', (s) => [s.metadata.namespace]);
    const pods = newStaticCollection<Pod>(Array.from({ length: 50 }, (_, i) => pod(`p${i}`, `10.0.0.${i}`, { app: 'web' })));
    const served = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      n: byNs.fetch(ctx, 'namespace', filterSelectsNonEmpty(p.metadata.labels ?? {})).length,
    }));
    reads = 0;
    services.updateObject(counted('web', { app: 'other' }));
    expect(served.list().every((w) => w.n === 0)).toBe(true);
    expect(served.list()).toHaveLength(50);
    // Filing the new service in the selector lookup reads it too, and strict mode's checks read every service
    // once more; testing the 50 inputs read each side once (twice per input before: over 100 reads).
    expect(reads).toBeLessThan(20);
  });

  it('should test each reader of an index key once for an update that keeps the key', () => {
    let tests = 0;
    // A fetch filter that counts its calls: change detection calls it once for each side of an event it tests.
    const counting = filterGeneric<ConfigMap>((c) => {
      tests++;
      return c.metadata.labels?.['team'] === 'x';
    });
    const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'y' })]);
    const byNs = newIndex(cms, 'ns', (c) => [c.metadata.namespace]);
    const pods = newStaticCollection<Pod>(Array.from({ length: 20 }, (_, i) => pod(`p${i}`, `10.0.0.${i}`)));
    let runs = 0;
    newCollection(pods, (ctx, p) => {
      runs++;
      return { metadata: p.metadata, n: byNs.fetch(ctx, 'namespace', counting).length };
    });
    tests = runs = 0;
    // Selected neither before nor after by any reader: nothing recomputes, and each of the 20 readers was tested
    // against the old and the new object once (80 calls when the new object's index key, the same, was
    // tested again).
    cms.updateObject(configMap('a', { team: 'z' }));
    expect(runs).toBe(0);
    expect(tests).toBe(40);
    tests = 0;
    // Selected by every reader afterwards: each is tested once more per side, and its rerun's fetch tests the object.
    cms.updateObject(configMap('a', { team: 'x' }));
    expect(runs).toBe(20);
    expect(tests).toBe(40 + 20);
    tests = runs = 0;
    // Selected by every reader before: that settles it, without testing the new object (only partialFetch,
    // which compares projections, needs both sides).
    cms.updateObject(configMap('a', { team: 'y' }));
    expect(runs).toBe(20);
    expect(tests).toBe(20 + 20);
  });

  it("should not ask for an event's index keys again for each reader found under them", () => {
    // How often the reverse index asks the index handle for an object's keys during one update of a config
    // map, with `readers` pods reading its namespace. (The handle memoizes its last two objects, so this counts
    // the asking, which is the cost: a memo probe and a key search per reader and side.)
    const asksForOneUpdate = (readers: number): number => {
      const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'y' })]);
      const byNs = newIndex(cms, 'ns', (c) => [c.metadata.namespace]);
      const pods = newStaticCollection<Pod>(Array.from({ length: readers }, (_, i) => pod(`p${i}`, `10.0.0.${i}`)));
      const out = newCollection(pods, (ctx, p) => ({
        metadata: p.metadata,
        n: byNs.fetch(ctx, 'namespace', filterLabel({ team: 'x' })).length,
      }));
      const handle = depsOf(out).depsOf('namespace/p0')[0]!.indexHandle!;
      const extract = handle.extract.bind(handle);
      let asks = 0;
      handle.extract = (o) => {
        asks++;
        return extract(o);
      };
      cms.updateObject(configMap('a', { team: 'x' }));
      expect(out.list().filter((w) => w.n === 1)).toHaveLength(readers);
      return asks;
    };
    // The index files the update and the reverse index reads the two objects' keys; every reader's one record
    // names that index and key, so testing it reads only its filters (one more ask per reader before).
    expect(asksForOneUpdate(60)).toBe(asksForOneUpdate(5));
  });

  it('should still test every record of a reader that fetched one index under two keys', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'y' })]);
    const byTeam = newIndex(cms, 'team', (c) => [c.metadata.labels?.['team'] ?? '']);
    const pods = newStaticCollection<Pod>([pod('p', '1')]);
    // One reader, two records in one index: found under either key, it must be tested against both records.
    const out = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      x: byTeam.fetch(ctx, 'x').length,
      z: byTeam.fetch(ctx, 'z').length,
    }));
    const seen = (): string =>
      out
        .list()
        .map((w) => `x=${w.x},z=${w.z}`)
        .join();
    cms.updateObject(configMap('a', { team: 'x' }));
    expect(seen()).toBe('x=1,z=0');
    cms.updateObject(configMap('a', { team: 'z' }));
    expect(seen()).toBe('x=0,z=1');
    cms.deleteObject('namespace/a');
    expect(seen()).toBe('x=0,z=0');
  });

  it('should reach the readers of the old index key and of the new one when an update moves the object', () => {
    const cms = newStaticCollection<ConfigMap>([configMap('a', { team: 'y' })]);
    const byTeam = newIndex(cms, 'team', (c) => [c.metadata.labels?.['team'] ?? '']);
    const pods = newStaticCollection<Pod>([pod('px', '1', { team: 'x' }), pod('pz', '2', { team: 'z' })]);
    const out = newCollection(pods, (ctx, p) => ({ metadata: p.metadata, n: byTeam.fetch(ctx, p.metadata.labels?.['team'] ?? '').length }));
    const n = (): string =>
      out
        .list()
        .map((w) => `${w.metadata.name}=${w.n}`)
        .sort()
        .join(',');
    expect(n()).toBe('px=0,pz=0');
    cms.updateObject(configMap('a', { team: 'x' })); // y → x: only the new key has readers
    expect(n()).toBe('px=1,pz=0');
    cms.updateObject(configMap('a', { team: 'z' })); // x → z: the readers of both
    expect(n()).toBe('px=0,pz=1');
  });
});
