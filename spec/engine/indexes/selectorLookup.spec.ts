import { describe, it, expect } from '@jest/globals';
import { SelectorLookup } from '../../../src/engine/indexes/selectorLookup.js';
import { CandidateList } from '../../../src/engine/indexes/candidateList.js';
import { isSubset, selectsNonEmpty, type Labels } from '../../../src/core/labels.js';
import { seededRandom } from '../../../src/testing/index.js';

interface Svc {
  name: string;
  spec: { selector: Labels };
}
const svc = (name: string, selector: Labels): Svc => ({ name, spec: { selector } });

function candidatesOf(lookup: SelectorLookup<Svc>, labels: Labels, withEmpty: boolean): string[] {
  const out = new CandidateList<Svc>();
  lookup.candidates(labels, withEmpty, out);
  const names: string[] = [];
  for (let i = 0; i < out.length; i++) names.push(out.at(i).name);
  return names;
}

describe('SelectorLookup', () => {
  it('should name only objects filed under one of the labels’ pairs, in insertion order', () => {
    const l = new SelectorLookup<Svc>();
    l.set('a', svc('a', { app: 'web' }));
    l.set('b', svc('b', { app: 'db' }));
    l.set('c', svc('c', { tier: 'front', app: 'web' }));
    l.set('d', svc('d', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web', tier: 'front' }, false)).toEqual(['a', 'c', 'd']);
    expect(candidatesOf(l, { app: 'db' }, false)).toEqual(['b']);
    expect(candidatesOf(l, { other: 'x' }, false)).toEqual([]);
  });

  it('should file a selector under its least crowded pair, so a crowded pair does not name it', () => {
    const l = new SelectorLookup<Svc>();
    for (let i = 0; i < 5; i++) l.set(`s${i}`, svc(`s${i}`, { app: `a${i}`, shard: 's0' }));
    // Each selector has its own app pair: none is filed under the shared shard pair, so a label map with
    // only that pair names nothing (and a subset test would reject all five anyway).
    expect(candidatesOf(l, { shard: 's0' }, false)).toEqual([]);
    expect(candidatesOf(l, { app: 'a3', shard: 's0' }, false)).toEqual(['s3']);
  });

  it('should rather join a small bucket of a label name in use than file under a name of its own', () => {
    const l = new SelectorLookup<Svc>();
    l.set('web', svc('web', { app: 'web' }));
    l.set('web-s0', svc('web-s0', { app: 'web', shard: 's0' }));
    // Filed under app=web (one other there), not under shard=s0: a label map whose app is another one
    // names nothing, and no lookup needs to read a shard label at all.
    expect(candidatesOf(l, { app: 'db', shard: 's0' }, false)).toEqual([]);
    expect(candidatesOf(l, { app: 'web', shard: 's0' }, false)).toEqual(['web', 'web-s0']);
    // Once every pair of the names in use is crowded, a new name is worth it.
    for (let i = 0; i < 4; i++) l.set(`more${i}`, svc(`more${i}`, { app: 'web' }));
    l.set('web-s1', svc('web-s1', { app: 'web', shard: 's1' }));
    expect(candidatesOf(l, { app: 'db', shard: 's1' }, false)).toEqual(['web-s1']);
  });

  it('should name empty selectors only when asked, and every object whose selector cannot be read', () => {
    type Named = { name: string };
    const l = new SelectorLookup<Named>();
    l.set('empty', svc('empty', {}));
    l.set('broken', {
      name: 'broken',
      getLabelSelector: (): Labels => {
        throw new Error('no selector');
      },
    } as Named);
    l.set('web', svc('web', { app: 'web' }));
    const names = (labels: Labels, withEmpty: boolean): string[] => {
      const out = new CandidateList<Named>();
      l.candidates(labels, withEmpty, out);
      return Array.from({ length: out.length }, (_, i) => out.at(i).name);
    };
    expect(names({ app: 'web' }, false)).toEqual(['broken', 'web']);
    expect(names({ app: 'web' }, true)).toEqual(['empty', 'broken', 'web']);
    expect(names({}, true)).toEqual(['empty', 'broken']);
  });

  it('should keep an updated object’s position, refile it when its selector changes, and put a re-added one last', () => {
    const l = new SelectorLookup<Svc>();
    l.set('a', svc('a', { app: 'web' }));
    l.set('b', svc('b', { app: 'web' }));
    l.set('c', svc('c', { app: 'web' }));
    l.set('a', svc('a', { app: 'db' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['b', 'c']);
    l.set('a', svc('a', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['a', 'b', 'c']);
    l.delete('b');
    l.set('b', svc('b', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['a', 'c', 'b']);
    expect(l.size).toBe(3);
  });

  it('should keep a reserved or vacated key’s place without naming it, and give it its value there', () => {
    const l = new SelectorLookup<Svc>();
    l.reserve('a');
    l.set('b', svc('b', { app: 'web' }));
    l.set('c', svc('c', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, true)).toEqual(['b', 'c']);
    expect(l.size).toBe(3);
    l.set('a', svc('a', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['a', 'b', 'c']);
    l.vacate('b');
    l.reserve('b'); // held already: stays where it is
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['a', 'c']);
    l.set('b', svc('b', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['a', 'b', 'c']);
    // Deleting a kept place frees its key: set again, it goes last.
    l.vacate('a');
    l.delete('a');
    l.set('a', svc('a', { app: 'web' }));
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['b', 'c', 'a']);
    const anchored = (l as unknown as { anchored: Map<string, Map<unknown, unknown[]>> }).anchored;
    l.vacate('a');
    l.vacate('b');
    l.vacate('c');
    expect(anchored.size).toBe(0);
    expect(l.size).toBe(3);
  });

  it('should hand back the current value of a key whose selector object stayed the same', () => {
    const l = new SelectorLookup<Svc>();
    const selector = { app: 'web' };
    l.set('a', svc('a', selector));
    const next = { name: 'a2', spec: { selector } };
    l.set('a', next);
    const out = new CandidateList<Svc>();
    l.candidates({ app: 'web' }, false, out);
    expect(out.length).toBe(1);
    expect(out.at(0)).toBe(next);
  });

  it('should drop the buckets it no longer needs, so that churning selectors do not pile up pairs', () => {
    const l = new SelectorLookup<Svc>();
    for (let i = 0; i < 1000; i++) l.set('s', svc('s', { app: `v${i}` }));
    l.delete('s');
    const anchored = (l as unknown as { anchored: Map<string, Map<unknown, Set<unknown>>> }).anchored;
    expect(anchored.size).toBe(0);
    // The same for label names: the list `candidates` walks while there are few keeps only those in use.
    for (let i = 0; i < 12; i++) l.set(`n${i}`, svc(`n${i}`, { [`name${i}`]: 'x' }));
    for (let i = 0; i < 12; i += 2) l.delete(`n${i}`);
    const names = (l as unknown as { names: string[] }).names;
    expect([...names].sort()).toEqual(['name1', 'name11', 'name3', 'name5', 'name7', 'name9']);
    for (let i = 1; i < 12; i += 2) expect(candidatesOf(l, { [`name${i}`]: 'x' }, false)).toEqual([`n${i}`]);
    for (let i = 1; i < 12; i += 2) l.delete(`n${i}`);
    expect(names).toEqual([]);
  });

  it('should find a label the label map holds but does not enumerate, as the filters’ own test does', () => {
    const l = new SelectorLookup<Svc>();
    l.set('web', svc('web', { app: 'web' }));
    const labels: Record<string, string> = { tier: 'front' };
    Object.defineProperty(labels, 'app', { value: 'web', enumerable: false });
    expect(selectsNonEmpty({ app: 'web' }, labels)).toBe(true);
    expect(candidatesOf(l, labels, false)).toEqual(['web']);
  });

  it('should always name a selector whose values are all undefined: it selects every label map without those labels', () => {
    const l = new SelectorLookup<Svc>();
    // Outside the types, but reachable from untyped code: `selectsNonEmpty` reads `labels.app === undefined`.
    const loose = svc('loose', { app: undefined } as unknown as Labels);
    const web = svc('web', { app: 'web' });
    // One undefined value among others: filed under the pair that has a value.
    const half = svc('half', { app: 'web', zone: undefined } as unknown as Labels);
    for (const s of [loose, web, half]) l.set(s.name, s);
    expect(selectsNonEmpty(loose.spec.selector, { tier: 'front' })).toBe(true);
    expect(candidatesOf(l, { tier: 'front' }, false)).toEqual(['loose']);
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual(['loose', 'web', 'half']);
    expect(l.inconsistency(new Map([loose, web, half].map((s) => [s.name, s])))).toBeUndefined();
  });

  it('should keep the order among many candidates of one crowded pair, through removals', () => {
    const l = new SelectorLookup<Svc>();
    for (let i = 0; i < 40; i++) l.set(`s${i}`, svc(`s${i}`, { app: 'web' }));
    for (let i = 0; i < 40; i += 3) l.delete(`s${i}`);
    l.set('s0', svc('s0', { app: 'web' }));
    const expected = Array.from({ length: 40 }, (_, i) => `s${i}`).filter((_, i) => i % 3 !== 0);
    expect(candidatesOf(l, { app: 'web' }, false)).toEqual([...expected, 's0']);
  });

  // Four label names keep `candidates` on its walk of the lookup's names; eight take it past FEW_NAMES, to
  // its walk of the label map.
  it.each([
    ['four', ['app', 'tier', 'zone', 'shard']],
    ['eight', ['app', 'tier', 'zone', 'shard', 'team', 'env', 'version', 'track']],
  ])(
    'should name, in order, a superset of what a scan selects, for random selectors, labels and edits (%s label names)',
    (_, labelNames) => {
      const rand = seededRandom(7);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const p0 = 4 / labelNames.length;
      const randomLabels = (p: number): Labels => {
        const l: Record<string, string> = {};
        for (const name of labelNames) if (rand() < p * p0) l[name] = pick(['a', 'b', 'c']);
        return l;
      };
      const lookup = new SelectorLookup<Svc>();
      // The set the lookup mirrors, kept the way an index group is (a Map: updates keep their place).
      const mirror = new Map<string, Svc>();
      for (let step = 0; step < 5000; step++) {
        const name = `s${Math.floor(rand() * 30)}`;
        if (rand() < 0.2) {
          lookup.delete(name);
          mirror.delete(name);
        } else {
          const s = svc(name, randomLabels(0.4));
          lookup.set(name, s);
          mirror.set(name, s);
        }
        expect(lookup.inconsistency(mirror)).toBeUndefined();
        const labels = randomLabels(0.7);
        for (const withEmpty of [false, true]) {
          const named = candidatesOf(lookup, labels, withEmpty);
          const order = [...mirror.keys()];
          // In the set's order, without repeats …
          expect(named).toEqual(order.filter((n) => named.includes(n)));
          // … and missing nothing a scan would select.
          const test = withEmpty ? (s: Svc) => isSubset(s.spec.selector, labels) : (s: Svc) => selectsNonEmpty(s.spec.selector, labels);
          const selected = [...mirror.values()].filter(test).map((s) => s.name);
          expect(selected.filter((n) => !named.includes(n))).toEqual([]);
        }
      }
    },
  );
});
