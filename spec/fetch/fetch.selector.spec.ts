import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newCollection,
  newSingleton,
  fetch,
  fetchOne,
  fetchOrList,
  partialFetch,
  filterSelects,
  filterSelectsNonEmpty,
  filterGeneric,
  batch,
  joinCollection,
  type Collection,
} from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';
import { keyOfObj, obj, reader, type Obj } from './fetch.fixtures.js';

/** An object whose selector is a method returning a new map at every call (`onRead` counts the calls). */
interface SelectorMethodObject {
  metadata: { name: string; namespace: string };
  app: string;
  getLabelSelector(): Record<string, string>;
}
const selectorMethodObject =
  (onRead: () => void) =>
  (name: string, app: string): SelectorMethodObject => ({
    metadata: { name, namespace: 'ns' },
    app,
    getLabelSelector() {
      onRead();
      return { app: this.app };
    },
  });

describe('fetch by selector over a whole collection', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  /** The keys a scan of `c` in `list()` order selects: what a fetch must return, in this order. */
  const scanned = (c: Collection<Obj>, labels: Record<string, string>, nonEmpty: boolean): string[] =>
    c
      .list()
      .filter((o) => {
        const sel = o.spec?.selector ?? {};
        return (!nonEmpty || Object.keys(sel).length > 0) && Object.entries(sel).every(([k, v]) => labels[k] === v);
      })
      .map(keyOfObj);

  it('should give, in list() order, what a scan gives, as objects come, change selector, go and come back', () => {
    const labels = { app: 'web', tier: 'front' };
    const build = (src: Collection<Obj>) =>
      newSingleton((ctx) => ({
        nonEmpty: fetch(ctx, src, filterSelectsNonEmpty(labels)).map(keyOfObj),
        any: fetch(ctx, src, filterSelects(labels)).map(keyOfObj),
      }));
    const sources = newStaticCollection<Obj>([]);
    // A derived collection (its values follow its entries: always scanned) and a join (state-ordered).
    const derived = newCollection(sources, (_ctx, o) => o);
    const joined = joinCollection([sources]);
    const seen = [sources, derived, joined].map((c) => ({ c, s: build(c) }));
    const check = (): void => {
      for (const { c, s } of seen) expect(s.get()).toEqual({ nonEmpty: scanned(c, labels, true), any: scanned(c, labels, false) });
    };
    const selectors: Record<string, string>[] = [{ app: 'web' }, { app: 'db' }, {}, { tier: 'front' }, { app: 'web', tier: 'back' }];
    batch(() => {
      for (let i = 0; i < 15; i++) sources.updateObject(obj(`ns/s${i}`, undefined, selectors[i % selectors.length]));
    });
    check();
    expect(seen[0]!.s.get()!.nonEmpty).toEqual(['ns/s0', 'ns/s3', 'ns/s5', 'ns/s8', 'ns/s10', 'ns/s13']);
    sources.updateObject(obj('ns/s1', undefined, { app: 'web' })); // starts selecting, keeps its place
    check();
    sources.updateObject(obj('ns/s0', undefined, { app: 'db' })); // stops selecting
    check();
    sources.deleteObject('ns/s3');
    sources.updateObject(obj('ns/s3', undefined, { tier: 'front' })); // comes back last
    check();
    expect(seen[0]!.s.get()!.nonEmpty.at(-1)).toBe('ns/s3');
    sources.deleteObjects(() => true);
    check();
  });

  it('should give what a scan gives for a selector with an undefined value (untyped input), through the lookup', () => {
    // Twelve services: past the size where a collection answers selector fetches from its lookup.
    const loose = { ...obj('ns/loose'), spec: { selector: { app: undefined } as unknown as Record<string, string> } };
    const src = newStaticCollection<Obj>([...Array.from({ length: 11 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i}` })), loose]);
    const keysFor = (labels: Record<string, string>) => newSingleton((ctx) => fetch(ctx, src, filterSelectsNonEmpty(labels)).map(keyOfObj));
    // The filter's own test reads `labels.app`, undefined for a label map without `app`: the loose selector selects it.
    expect(keysFor({ tier: 'front' }).get()).toEqual(['ns/loose']);
    expect(keysFor({ app: 'a3' }).get()).toEqual(['ns/s3']);
  });

  it('should recompute only readers whose selector fetch the change concerns', () => {
    const src = newStaticCollection<Obj>(Array.from({ length: 10 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i}` })));
    const r = reader(src, filterSelectsNonEmpty({ app: 'a3' }));
    expect(r.keys()).toEqual(['ns/s3']);
    src.updateObject(obj('ns/s5', undefined, { app: 'a5', x: 'y' }));
    expect(r.runs()).toBe(1);
    src.updateObject(obj('ns/s5', undefined, { app: 'a3' }));
    expect(r.keys()).toEqual(['ns/s3', 'ns/s5']);
    expect(r.runs()).toBe(2);
  });

  it('should answer fetchOne, fetchOrList and partialFetch by selector from the lookup as from a scan', () => {
    const src = newStaticCollection<Obj>(Array.from({ length: 12 }, (_, i) => obj(`ns/s${i}`, undefined, { app: `a${i % 6}` }, i)));
    const one = newSingleton((ctx) =>
      fetchOne(
        ctx,
        src,
        filterSelectsNonEmpty({ app: 'a1', tier: 'x' }),
        filterGeneric((o: Obj) => (o.v ?? 0) < 6),
      ),
    );
    expect(one.get()?.metadata.name).toBe('s1');
    expect(fetchOrList(undefined, src, filterSelects({ app: 'a2' })).map(keyOfObj)).toEqual(['ns/s2', 'ns/s8']);
    let runs = 0;
    const vs = newSingleton((ctx) => {
      runs++;
      return partialFetch(ctx, src, (o: Obj) => o.metadata.name, filterSelectsNonEmpty({ app: 'a3' })).join(',');
    });
    expect(vs.get()).toBe('s3,s9');
    // Same projection, same side of the filter: nothing to recompute.
    src.updateObject(obj('ns/s9', undefined, { app: 'a3' }, 90));
    expect(runs).toBe(1);
    // Moving out of the selection does.
    src.updateObject(obj('ns/s9', undefined, { app: 'a4' }, 90));
    expect(vs.get()).toBe('s3');
  });

  it('should refile objects whose selector method returns a new map on every call, and compare values, not maps', () => {
    const sel = selectorMethodObject(() => {});
    const src = newStaticCollection<SelectorMethodObject>(Array.from({ length: 9 }, (_, i) => sel(`s${i}`, `a${i % 3}`)));
    const names = newSingleton((ctx) =>
      fetch(ctx, src, filterSelectsNonEmpty({ app: 'a1' }))
        .map((o) => o.metadata.name)
        .join(','),
    );
    expect(names.get()).toBe('s1,s4,s7');
    src.updateObject(sel('s4', 'a2'));
    src.updateObject(sel('s0', 'a1'));
    expect(names.get()).toBe('s0,s1,s7');
  });

  it('should read a selector when the lookup files its object, not again at every fetch it answers', () => {
    let reads = 0;
    const sel = selectorMethodObject(() => reads++);
    const src = newStaticCollection<SelectorMethodObject>(Array.from({ length: 10 }, (_, i) => sel(`s${i}`, `a${i % 5}`)));
    const readers = newStaticCollection<{ metadata: { name: string; namespace: string }; app: string }>([]);
    const found = newCollection(readers, (ctx, r) => ({
      metadata: r.metadata,
      names: fetch(ctx, src, filterSelectsNonEmpty({ app: r.app })).map((o) => o.metadata.name),
    }));
    readers.updateObject({ metadata: { name: 'r0', namespace: 'ns' }, app: 'a1' });
    const filed = reads; // the lookup read every selector once, when it was built
    expect(filed).toBe(10);
    batch(() => {
      for (let i = 1; i <= 50; i++) readers.updateObject({ metadata: { name: `r${i}`, namespace: 'ns' }, app: `a${i % 5}` });
    });
    expect(reads).toBe(filed);
    expect(found.getKey('ns/r3')?.names).toEqual(['s3', 's8']);
    // A change is filed once, plus the reads that find which readers it concerns (one per reader that might).
    src.updateObject(sel('s3', 'a4'));
    expect(found.getKey('ns/r3')?.names).toEqual(['s8']);
    expect(found.getKey('ns/r4')?.names).toEqual(['s3', 's4', 's9']);
  });
});
