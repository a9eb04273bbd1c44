import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  fetch,
  filterLabelSelector,
  filterSelects,
  filterSelectsNonEmpty,
  labelSelectorOf,
  matchesLabelSelector,
  newSingleton,
  newStaticCollection,
  UsageError,
  type Collection,
  type FetchFilter,
  type LabelSelector,
  type TransformError,
} from '../../src/index.js';
import { seededRandom } from '../../src/testing/index.js';
import { captureLog } from '../helpers/fixtures.js';

interface Pod {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
}
interface Svc {
  metadata: { name: string; namespace: string };
  spec: { selector: LabelSelector | Record<string, string> };
}
const pod = (name: string, labels: Record<string, string>): Pod => ({ metadata: { name, namespace: 'ns', labels } });
const svc = (name: string, selector: LabelSelector | Record<string, string>): Svc => ({
  metadata: { name, namespace: 'ns' },
  spec: { selector },
});
const nameOf = (o: { metadata: { name: string } }): string => o.metadata.name;

/** A singleton reading `src` through `filters`: its value is the sorted names it fetched; `runs` counts its runs. */
function reader<T extends { metadata: { name: string } }>(src: Collection<T>, ...filters: FetchFilter[]) {
  let runs = 0;
  const s = newSingleton((ctx) => {
    runs++;
    return {
      names: fetch(ctx, src, ...filters)
        .map(nameOf)
        .sort(),
    };
  });
  return { names: () => s.get()?.names, runs: () => runs, singleton: s };
}

describe('filterLabelSelector', () => {
  it('should read objects whose labels meet a selector given as text, and recompute as labels move in and out', () => {
    const pods = newStaticCollection<Pod>([
      pod('a', { app: 'web', track: 'stable' }),
      pod('b', { app: 'web', track: 'canary' }),
      pod('c', { app: 'db' }),
    ]);
    const r = reader(pods, filterLabelSelector('app in (web),track notin (canary)'));
    expect(r.names()).toEqual(['a']);
    pods.updateObject(pod('b', { app: 'web' }));
    expect(r.names()).toEqual(['a', 'b']);
    pods.updateObject(pod('a', { app: 'web', track: 'canary' }));
    expect(r.names()).toEqual(['b']);
    const runs = r.runs();
    pods.updateObject(pod('c', { app: 'db', x: 'y' }));
    expect(r.runs()).toBe(runs);
  });

  it('should take a LabelSelector object, and select everything with an empty one', () => {
    const pods = newStaticCollection<Pod>([pod('a', { app: 'web' }), pod('b', {})]);
    expect(reader(pods, filterLabelSelector({ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] })).names()).toEqual(['b']);
    expect(reader(pods, filterLabelSelector({})).names()).toEqual(['a', 'b']);
    expect(reader(pods, filterLabelSelector('')).names()).toEqual(['a', 'b']);
  });

  it('should refuse an invalid selector at once, naming it', () => {
    expect(() => filterLabelSelector('app in ()')).toThrow(UsageError);
    expect(() => filterLabelSelector({ matchExpressions: [{ key: 'app', operator: 'In' }] })).toThrow(
      /invalid label selector .*values must be non-empty when operator is In/,
    );
  });

  it('should give the same filter selector for the same text, so that reruns reuse their dependency', () => {
    const a = filterLabelSelector('app=web') as { selector: LabelSelector };
    const b = filterLabelSelector('app=web') as { selector: LabelSelector };
    expect(a.selector).toBe(b.selector);
  });
});

describe('filterSelects with matchExpressions', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should not read a selector of expressions only as empty (which would select everything)', () => {
    const services = newStaticCollection<Svc>([svc('db', { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] })]);
    expect(reader(services, filterSelects({ app: 'web' })).names()).toEqual([]);
    expect(reader(services, filterSelects({ app: 'db' })).names()).toEqual(['db']);
    expect(reader(services, filterSelectsNonEmpty({ app: 'db' })).names()).toEqual(['db']);
  });

  it('should count a selector of expressions only as non-empty, for filterSelectsNonEmpty', () => {
    const services = newStaticCollection<Svc>([
      svc('not-legacy', { matchExpressions: [{ key: 'legacy', operator: 'DoesNotExist' }] }),
      svc('empty', {}),
    ]);
    expect(reader(services, filterSelectsNonEmpty({ app: 'web' })).names()).toEqual(['not-legacy']);
    expect(reader(services, filterSelects({ app: 'web' })).names()).toEqual(['empty', 'not-legacy']);
  });

  it('should recompute a reader when a service gains or loses an expression that concerns it', () => {
    const services = newStaticCollection<Svc>([svc('web', { matchLabels: { app: 'web' } })]);
    const r = reader(services, filterSelectsNonEmpty({ app: 'web', track: 'canary' }));
    expect(r.names()).toEqual(['web']);
    services.updateObject(
      svc('web', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary'] }] }),
    );
    expect(r.names()).toEqual([]);
    services.updateObject(
      svc('web', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'In', values: ['canary'] }] }),
    );
    expect(r.names()).toEqual(['web']);
  });

  // Below 8 objects a fetch scans; from 8 on it asks the selector lookup: both must give what the rules say.
  it.each([5, 40])('should select exactly what Kubernetes rules say over %i random services and pods, scan or lookup', (size) => {
    const random = seededRandom(size);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const randomLabels = (): Record<string, string> => {
      const l: Record<string, string> = {};
      if (random() < 0.7) l['app'] = pick(['a', 'b', 'c']);
      if (random() < 0.5) l['tier'] = pick(['x', 'y']);
      return l;
    };
    const randomSelector = (): LabelSelector | Record<string, string> => {
      if (random() < 0.3) return randomLabels();
      const expressions = [
        { key: 'tier', operator: 'In' as const, values: [pick(['x', 'y'])] },
        { key: 'app', operator: 'NotIn' as const, values: [pick(['a', 'b'])] },
        { key: 'tier', operator: 'Exists' as const },
        { key: 'app', operator: 'DoesNotExist' as const },
      ].filter(() => random() < 0.4);
      return { matchLabels: random() < 0.5 ? randomLabels() : {}, matchExpressions: expressions };
    };
    const services = newStaticCollection<Svc>([]);
    for (let i = 0; i < size; i++) services.updateObject(svc(`s${i}`, randomSelector()));
    const probes = Array.from({ length: 12 }, randomLabels);
    const readers = probes.map((labels) => ({
      labels,
      all: reader(services, filterSelects(labels)),
      nonEmpty: reader(services, filterSelectsNonEmpty(labels)),
    }));
    const expected = (labels: Record<string, string>, nonEmpty: boolean): string[] =>
      services
        .list()
        .filter((s) => {
          const sel = labelSelectorOf(s);
          const empty = Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
          return !(nonEmpty && empty) && matchesLabelSelector(sel, labels);
        })
        .map(nameOf)
        .sort();
    for (let step = 0; step < 60; step++) {
      services.updateObject(svc(`s${Math.floor(random() * size)}`, randomSelector()));
      for (const r of readers) {
        expect(r.all.names()).toEqual(expected(r.labels, false));
        expect(r.nonEmpty.names()).toEqual(expected(r.labels, true));
      }
    }
  });

  it('should report an invalid selector on the reader, naming the collection, the object and the selector', () => {
    const services = newStaticCollection<Svc>([svc('ok', { app: 'web' })], { name: 'Services' });
    const r = reader(services, filterSelectsNonEmpty({ app: 'web' }));
    const errors: TransformError[] = [];
    r.singleton.asCollection().errors$.subscribe((e) => errors.push(e));
    services.updateObject(svc('bad', { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['web'] }] }));
    expect(errors.length).toBeGreaterThan(0);
    const message = errors.map((e) => e.message).join('\n');
    expect(message).toContain('collection "Services" object "ns/bad"');
    expect(message).toContain('values must be empty when operator is Exists');
    expect(message).toContain('"operator":"Exists"');
    // The reader keeps its last good result rather than reading the bad selector as anything.
    expect(r.names()).toEqual(['ok']);
  });
});
