// White-box: a collection's indexes and selector lookup, built on first use and kept in step with writes.
import { describe, it, expect } from '@jest/globals';
import { StateIndexes } from '../../../src/engine/indexes/stateIndexes.js';
import { SelectorLookup } from '../../../src/engine/indexes/selectorLookup.js';
import { CandidateList } from '../../../src/engine/indexes/candidateList.js';
import { internal } from '../../../src/engine/internalCollection.js';
import { newStaticCollection } from '../../../src/index.js';

type Svc = { metadata: { name: string; namespace: string }; selector: Record<string, string> };
const svc = (name: string, ns: string, selector: Record<string, string>): Svc => ({ metadata: { name, namespace: ns }, selector });

const candidates = (lookup: SelectorLookup<Svc>, labels: Record<string, string>): string[] => {
  const out = new CandidateList<Svc>();
  lookup.candidates(labels, false, out);
  const names: string[] = [];
  for (let i = 0; i < out.length; i++) names.push(out.at(i).metadata.name);
  return names;
};

describe('StateIndexes', () => {
  it('should stay inactive until an index or a lookup exists, so that writes cost a flag test', () => {
    const ix = new StateIndexes<Svc>();
    expect(ix.active).toBe(false);
    ix.lookup = new SelectorLookup<Svc>();
    expect(ix.active).toBe(true);
    ix.lookup = undefined;
    expect(ix.active).toBe(false);
  });

  it('should return the index a name already has, and keep every index and the lookup in step with writes', () => {
    const source = internal(newStaticCollection<Svc>([]));
    const ix = new StateIndexes<Svc>();
    const errors: unknown[] = [];
    const byNs = ix.indexFor(
      'ns',
      source,
      (s) => [s.metadata.namespace],
      (e) => errors.push(e),
    );
    expect(
      ix.indexFor(
        'ns',
        source,
        () => ['other'],
        (e) => errors.push(e),
      ),
    ).toBe(byNs);
    ix.lookup = new SelectorLookup<Svc>();
    const a = svc('a', 'x', { app: 'a' });
    ix.written('x/a', undefined, a);
    expect([...byNs.lookupValues('x')]).toEqual([a]);
    expect(candidates(ix.lookup, { app: 'a' })).toEqual(['a']);
    const moved = svc('a', 'y', { app: 'b' });
    ix.written('x/a', a, moved);
    expect([...byNs.lookupValues('x')]).toEqual([]);
    expect([...byNs.lookupValues('y')]).toEqual([moved]);
    expect(candidates(ix.lookup, { app: 'a' })).toEqual([]);
    ix.written('x/a', moved, undefined);
    expect(byNs.size).toBe(0);
    expect(ix.lookup.size).toBe(0);
    expect(errors).toEqual([]);
  });

  it('should keep a derived entry’s place in the lookup while it has no value, and drop it when the entry goes', () => {
    const ix = new StateIndexes<Svc>();
    ix.lookup = new SelectorLookup<Svc>();
    ix.reserve('k');
    expect(ix.lookup.size).toBe(1);
    const v = svc('k', 'x', { app: 'k' });
    ix.visibleChanged('k', undefined, v);
    expect(candidates(ix.lookup, { app: 'k' })).toEqual(['k']);
    ix.visibleChanged('k', v, undefined);
    expect(ix.lookup.size).toBe(1);
    expect(candidates(ix.lookup, { app: 'k' })).toEqual([]);
    ix.dropped('k');
    expect(ix.lookup.size).toBe(0);
  });

  it('should tell, in strict mode’s check, when the lookup no longer mirrors the visible state', () => {
    const ix = new StateIndexes<Svc>();
    ix.lookup = new SelectorLookup<Svc>();
    const a = svc('a', 'x', { app: 'a' });
    ix.written('x/a', undefined, a);
    expect(ix.inconsistency(new Map([['x/a', a]]))).toBeUndefined();
    expect(ix.inconsistency(new Map())).toMatch(/selector lookup holds 1 keys, the set 0/);
  });
});
