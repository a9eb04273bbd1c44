// Index groups fetched by selector: groups of 8 or more objects answer through a selector lookup, which must
// give exactly what a scan of the group gives, in the same order, through every kind of change.
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  batch,
  filterGeneric,
  filterSelects,
  filterSelectsNonEmpty,
  newCollection,
  newIndex,
  newNamespaceIndex,
  newSingleton,
  newStaticCollection,
  setLogger,
  isSubset,
  type TransformError,
} from '../../../src/index.js';

interface Svc {
  metadata: { name: string; namespace: string };
  spec: { selector: Record<string, string> };
}
const svc = (ns: string, name: string, selector: Record<string, string>): Svc => ({
  metadata: { name, namespace: ns },
  spec: { selector },
});
const nameList = (xs: readonly Svc[]): string => xs.map((s) => s.metadata.name).join(',');

/** What a scan of the group gives: the group's objects in order, tested one by one. */
function scanned(group: readonly Svc[], labels: Record<string, string>, nonEmpty: boolean): string {
  return nameList(group.filter((s) => (!nonEmpty || Object.keys(s.spec.selector).length > 0) && isSubset(s.spec.selector, labels)));
}

describe('IndexState selector lookups', () => {
  beforeEach(() => setLogger({ warn() {}, error() {} }));
  afterEach(() => setLogger());

  it('should give what a scan gives, in group order, as services are added, reselected, deleted and re-added', () => {
    const services = newStaticCollection<Svc>([], { name: 'Services' });
    const byNs = newNamespaceIndex(services);
    const labels = { app: 'web', tier: 'front' };
    const seen = newSingleton(
      (ctx) => ({
        nonEmpty: nameList(byNs.fetch(ctx, 'ns', filterSelectsNonEmpty(labels))),
        any: nameList(byNs.fetch(ctx, 'ns', filterSelects(labels))),
      }),
      { name: 'Seen' },
    );
    const check = (): void => {
      const group = byNs.lookup('ns');
      expect(seen.get()).toEqual({ nonEmpty: scanned(group, labels, true), any: scanned(group, labels, false) });
    };
    // Twelve services, some selecting the labels, some empty, some selecting something else.
    const selectors: Record<string, string>[] = [
      { app: 'web' },
      { app: 'db' },
      {},
      { tier: 'front' },
      { app: 'web', tier: 'back' },
      { app: 'web', tier: 'front' },
    ];
    batch(() => {
      for (let i = 0; i < 12; i++) services.updateObject(svc('ns', `s${i}`, selectors[i % selectors.length]!));
    });
    expect(seen.get()!.nonEmpty).toBe('s0,s3,s5,s6,s9,s11');
    check();
    services.updateObject(svc('ns', 's1', { tier: 'front' })); // starts selecting: keeps its place
    check();
    expect(seen.get()!.nonEmpty.startsWith('s0,s1,')).toBe(true);
    services.updateObject(svc('ns', 's0', { app: 'db' })); // stops selecting
    check();
    services.deleteObject('ns/s3');
    services.updateObject(svc('ns', 's3', { app: 'web' })); // re-added: last
    check();
    expect(seen.get()!.nonEmpty.endsWith(',s3')).toBe(true);
    services.updateObject(svc('other', 'x', { app: 'web' })); // another group: not read
    check();
    batch(() => {
      for (let i = 0; i < 12; i++) services.deleteObject(`ns/s${i}`);
    });
    expect(seen.get()).toEqual({ nonEmpty: '', any: '' });
    services.updateObject(svc('ns', 'late', {}));
    check();
  });

  it('should build a group’s lookup only once the group is fetched by selector with 8 objects, and drop it with the group', () => {
    const services = newStaticCollection<Svc>([], { name: 'Services' });
    const byNs = newNamespaceIndex(services);
    // The collection's private index list: the lookups are an implementation detail this test pins.
    const state = (services as unknown as { indexes: { all: { lookups?: Map<string, unknown> }[] } }).indexes.all[0]!;
    const seen = newSingleton((ctx) => nameList(byNs.fetch(ctx, 'ns', filterSelectsNonEmpty({ app: 'web' }))), { name: 'Seen' });
    for (let i = 0; i < 7; i++) services.updateObject(svc('ns', `s${i}`, { app: 'web' }));
    expect(state.lookups?.size ?? 0).toBe(0);
    services.updateObject(svc('ns', 's7', { app: 'web' }));
    expect(seen.get()).toBe('s0,s1,s2,s3,s4,s5,s6,s7');
    expect(state.lookups?.has('ns')).toBe(true);
    batch(() => {
      for (let i = 0; i < 8; i++) services.deleteObject(`ns/s${i}`);
    });
    expect(seen.get()).toBe('');
    expect(state.lookups?.has('ns')).toBe(false);
  });

  it('should let a selector or predicate that fetches again run inside a fetch by selector', () => {
    const services = newStaticCollection<Svc>([], { name: 'Services' });
    const byNs = newNamespaceIndex(services);
    for (let i = 0; i < 10; i++) services.updateObject(svc('ns', `s${i}`, i % 2 === 0 ? { app: 'web' } : { app: 'db' }));
    const pods = newStaticCollection([{ metadata: { name: 'p', namespace: 'ns' } }], { name: 'Pods' });
    const out = newCollection(
      pods,
      (ctx, p) => {
        // The predicate itself fetches through the same group by selector, while the outer fetch tests it.
        const inner = filterGeneric(
          (s: Svc) => byNs.fetch(ctx, 'ns', filterSelectsNonEmpty({ app: 'db' })).length === 5 && s.metadata.name !== 's2',
        );
        return {
          metadata: p.metadata,
          names: nameList(byNs.fetch(ctx, p.metadata.namespace, filterSelectsNonEmpty({ app: 'web' }), inner)),
        };
      },
      { name: 'Out' },
    );
    expect(out.getKey('ns/p')?.names).toBe('s0,s4,s6,s8');
  });

  it('should meet a selector that cannot be read where a scan would: with the same errors, naming the fetching transform', () => {
    interface Odd {
      metadata: { name: string; namespace: string };
      getLabelSelector(): Record<string, string>;
    }
    const odd = (name: string, broken: boolean): Odd => ({
      metadata: { name, namespace: 'ns' },
      getLabelSelector: () => {
        if (broken) throw new Error(`selector of ${name} unreadable`);
        return { app: 'web' };
      },
    });
    /** Errors seen when one of `size` objects' selector becomes unreadable, and the count after it mends. */
    const run = (size: number): { errors: string[]; mended: number | undefined } => {
      const objects = newStaticCollection<Odd>([], { name: 'Odd' });
      const byNs = newNamespaceIndex(objects);
      for (let i = 0; i < size; i++) objects.updateObject(odd(`o${i}`, false));
      const pods = newStaticCollection([{ metadata: { name: 'p', namespace: 'ns' } }], { name: 'Pods' });
      const out = newCollection(
        pods,
        (ctx, p) => ({ metadata: p.metadata, n: byNs.fetch(ctx, 'ns', filterSelectsNonEmpty({ app: 'web' })).length }),
        { name: 'Out' },
      );
      const errors: TransformError[] = [];
      out.errors$.subscribe((e) => errors.push(e));
      expect(out.getKey('ns/p')?.n).toBe(size);
      objects.updateObject(odd('o4', true));
      expect(out.getKey('ns/p')?.n).toBe(size); // the last good output stays
      objects.updateObject(odd('o4', false));
      for (const e of errors) expect([e.collection, e.key]).toEqual(['Out', 'ns/p']);
      return { errors: errors.map((e) => e.message), mended: out.getKey('ns/p')?.n };
    };
    const scan = run(6);
    const lookup = run(12);
    expect(scan.errors.some((m) => m.includes('selector of o4 unreadable'))).toBe(true);
    expect(lookup.errors).toEqual(scan.errors);
    expect([scan.mended, lookup.mended]).toEqual([6, 12]);
  });
});

describe('IndexState.extract', () => {
  it('should run the extract function a few times for a change that reaches many readers, not twice per reader', () => {
    let calls = 0;
    const services = newStaticCollection<Svc>([svc('ns', 'web', { app: 'web' })], { name: 'Services' });
    const byNs = newIndex(services, 'counted-namespace', (s) => {
      calls++;
      return [s.metadata.namespace];
    });
    interface P {
      metadata: { name: string; namespace: string; labels: Record<string, string> };
    }
    const pods = newStaticCollection<P>(
      Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `p${i}`, namespace: 'ns', labels: { app: 'web' } } })),
    );
    const served = newCollection(pods, (ctx, p) => ({
      metadata: p.metadata,
      services: byNs.fetch(ctx, 'ns', filterSelectsNonEmpty(p.metadata.labels)).length,
    }));
    calls = 0;
    // The 50 readers are each tested against the event's old and new object: with a one-entry memo the two
    // evicted each other, and this took 2 calls per reader.
    services.updateObject(svc('ns', 'web', { app: 'other' }));
    expect(served.list().every((w) => w.services === 0)).toBe(true);
    expect(calls).toBeLessThanOrEqual(4);
  });
});
