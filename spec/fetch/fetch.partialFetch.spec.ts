import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newSingleton,
  partialFetch,
  filterLabel,
  filterSelects,
  UsageError,
  type TransformError,
} from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';
import { obj, type Obj } from './fetch.fixtures.js';

describe('partialFetch', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should return projections and ignore updates whose projection is equal', () => {
    const src = newStaticCollection<Obj>([obj('ns/a', { app: 'x' }, undefined, 1)]);
    let runs = 0;
    const s = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, src, (o) => o.metadata.labels?.['app'] ?? '', filterLabel({ app: 'x' }))
        .sort()
        .join(',');
    });
    expect(s.get()).toBe('x');
    src.updateObject(obj('ns/a', { app: 'x' }, undefined, 2));
    expect(runs).toBe(1);
    // Adds and deletes always count.
    src.updateObject(obj('ns/b', { app: 'x' }, undefined, 2));
    expect(runs).toBe(2);
    expect(s.get()).toBe('x,x');
    src.deleteObject('ns/b');
    expect(runs).toBe(3);
    // An update with a different projection counts.
    src.updateObject(obj('ns/a', { app: 'y' }));
    expect(runs).toBe(4);
    expect(s.get()).toBe('');
  });

  it('should require a projection function', () => {
    const src = newStaticCollection<Obj>([]);
    const inputs = newStaticCollection<string>([]);
    const errors: TransformError[] = [];
    const c = newCollection(inputs, (ctx, i) => `${i}${partialFetch(ctx, src, undefined as unknown as (o: Obj) => string).length}`);
    c.errors$.subscribe((e) => errors.push(e));
    inputs.updateObject('a');
    expect(c.list()).toEqual([]);
    expect(errors.map((e) => e.error instanceof UsageError)).toEqual([true]);
  });
});

describe('partialFetch membership', () => {
  // Deliberate difference from krt: an update whose projection is equal is suppressed only when the object
  // stays on the same side of the fetch's filters. Moving into or out of the result always recomputes.
  interface Pol {
    metadata: { name: string; namespace: string };
    spec: { selector: Record<string, string> };
    status?: { n: number };
  }
  const pol = (sel: Record<string, string>, n?: number): Pol => ({
    metadata: { name: 'p', namespace: 'ns' },
    spec: { selector: sel },
    ...(n !== undefined ? { status: { n } } : {}),
  });

  it('should recompute when an equal-projection update moves an object into or out of the result, and only then', () => {
    const policies = newStaticCollection<Pol>([pol({ tier: 'web' })]);
    let runs = 0;
    const names = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, policies, (p) => p.metadata.name, filterSelects({ tier: 'db' })).join(',');
    });
    expect(names.get()).toBe('');
    const base = runs;
    policies.updateObject(pol({ tier: 'web' }, 1)); // status only, still outside the result: nothing to do
    expect(runs).toBe(base);
    policies.updateObject(pol({ tier: 'db' }, 1)); // same projection ('p'), but now selected: must rerun
    expect(names.get()).toBe('p');
    expect(runs).toBe(base + 1);
    policies.updateObject(pol({ tier: 'db' }, 2)); // status only, still inside: suppressed
    expect(runs).toBe(base + 1);
    policies.updateObject(pol({ app: 'x' }, 2)); // leaves the result: must rerun
    expect(names.get()).toBe('');
    expect(runs).toBe(base + 2);
  });
});
