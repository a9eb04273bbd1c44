import { describe, it, expect, afterEach } from '@jest/globals';
import { batch, fetch, filterGeneric, newCollection, newStaticCollection, setStrictMode, type Collection } from '../../../src/index.js';
import { captureLog } from '../../helpers/fixtures.js';
import { internal } from '../../../src/engine/internalCollection.js';

describe('DerivedCollection work list', () => {
  afterEach(() => setStrictMode(false));

  interface Item {
    metadata: { name: string };
    n: number;
  }
  const item = (name: string, n: number): Item => ({ metadata: { name }, n });
  const entriesOf = (c: Collection<unknown>): Map<string, { queued: boolean }> =>
    (internal(c) as unknown as { entries: Map<string, { queued: boolean }> }).entries;

  it('should unmark every input it recomputed, so that the next change to any of them is seen', () => {
    const items = newStaticCollection<Item>([item('a', 1), item('b', 1), item('c', 1)]);
    const doubled = newCollection(items, (_ctx, i) => ({ metadata: i.metadata, n: 2 * i.n }));
    for (let round = 2; round < 5; round++) {
      batch(() => {
        for (const name of ['a', 'b', 'c']) items.updateObject(item(name, round));
      });
      expect([...entriesOf(doubled).values()].map((e) => e.queued)).toEqual([false, false, false]);
      expect(doubled.list().map((i) => i.n)).toEqual([2 * round, 2 * round, 2 * round]);
    }
  });

  it('should report in strict mode an input left marked after its flush, which a later change would skip', () => {
    setStrictMode(true);
    const items = newStaticCollection<Item>([item('a', 1), item('b', 1)]);
    const doubled = newCollection(items, (_ctx, i) => ({ metadata: i.metadata, n: 2 * i.n }));
    entriesOf(doubled).get('a')!.queued = true;
    expect(() => items.updateObject(item('b', 2))).toThrow(/collection ".*": input "a" is still marked queued after its flush/);
  });
});

// A transform may fetch its own parent. The parent's batches then reach the collection twice: as its input,
// and through the dependency index, for the inputs that fetched what changed. Whether any input does is kept
// by the index's first and last use of the parent; strict mode checks it after every transaction.
describe('DerivedCollection fetching its own parent', () => {
  interface Item {
    metadata: { name: string };
    group: string;
    /** Whether the item's output counts the other items of its group (a fetch of the parent). */
    counts: boolean;
  }
  const item = (name: string, group: string, counts: boolean): Item => ({ metadata: { name }, group, counts });
  afterEach(() => setStrictMode(false));

  it('should recompute the inputs that fetched the parent, as inputs start and stop fetching it', () => {
    setStrictMode(true);
    const items = newStaticCollection<Item>([item('a', 'g', false), item('b', 'g', false)]);
    const out = newCollection(items, (ctx, i) => ({
      metadata: i.metadata,
      peers: i.counts
        ? fetch(
            ctx,
            items,
            filterGeneric((o: Item) => o.group === i.group),
          ).length
        : -1,
    }));
    const dependencyIndex = (internal(out) as unknown as { dependencyIndex(): { uses(uid: number): boolean } }).dependencyIndex();
    const parentUid = (internal(items) as unknown as { uid: number }).uid;
    const peers = (): Record<string, number> => Object.fromEntries(out.list().map((o) => [o.metadata.name, o.peers]));
    expect(peers()).toEqual({ a: -1, b: -1 });
    expect(dependencyIndex.uses(parentUid)).toBe(false);

    items.updateObject(item('a', 'g', true)); // a starts fetching: it sees both
    expect(peers()).toEqual({ a: 2, b: -1 });
    items.updateObject(item('c', 'g', false)); // a third item of the group reaches a through the index
    expect(peers()).toEqual({ a: 3, b: -1, c: -1 });
    expect(dependencyIndex.uses(parentUid)).toBe(true);

    items.updateObject(item('a', 'g', false)); // the last fetch of the parent goes
    expect(dependencyIndex.uses(parentUid)).toBe(false);
    items.updateObject(item('d', 'g', true)); // and a new one comes, from a new input
    items.deleteObject('c');
    expect(peers()).toEqual({ a: -1, b: -1, d: 3 });
    items.deleteObject('d'); // the input that fetched is gone: so is the use
    expect(dependencyIndex.uses(parentUid)).toBe(false);
    items.updateObject(item('e', 'g', false));
    expect(peers()).toEqual({ a: -1, b: -1, e: -1 });
  });
});

// A rerun of an input that owns the one output named like itself settles without staging (the common case of a
// 1:1 collection); every other result takes the general path. Both must end in the same state and events.
describe('DerivedCollection settling a 1:1 rerun', () => {
  interface Obj {
    metadata: { name: string; namespace?: string };
    v: number;
  }
  const obj = (name: string, v: number): Obj => ({ metadata: { name }, v });
  const label = (e: { type: string; old?: Obj; new?: Obj }): string =>
    `${e.type}/${(e.new ?? e.old)!.metadata.name}${e.new ? `=${e.new.v}` : ''}`;
  let log: ReturnType<typeof captureLog> | undefined;
  afterEach(() => {
    log?.restore();
    log = undefined;
  });

  it('should keep the visible object for an equal rerun, and replace it frozen for a changed one', () => {
    const src = newStaticCollection<Obj>([obj('a', 1)]);
    const out = newCollection(src, (_ctx, o) => ({ metadata: { name: o.metadata.name }, v: Math.floor(o.v / 10) }));
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    const first = out.getKey('a')!;
    src.updateObject(obj('a', 5));
    expect(out.getKey('a')).toBe(first);
    src.updateObject(obj('a', 25));
    const second = out.getKey('a')!;
    expect(second).not.toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(seen).toEqual(['add/a=0', 'update/a=2']);
  });

  it('should report an equals that throws on a rerun and count the outputs as different', () => {
    log = captureLog();
    const src = newStaticCollection<Obj>([obj('a', 1)]);
    const out = newCollection(src, (_ctx, o) => ({ metadata: { name: o.metadata.name }, v: o.v }), {
      name: 'Out',
      equals: () => {
        throw new Error('no compare');
      },
    });
    const errors: string[] = [];
    out.errors$.subscribe((e) => errors.push(e.message));
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    src.updateObject(obj('a', 1));
    expect(seen).toEqual(['add/a=1', 'update/a=1']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('"Out"');
    expect(errors[0]).toContain('no compare');
  });

  it('should move an output that stops being named like its input, and take it back when it is again', () => {
    const src = newStaticCollection<Obj>([obj('a', 1)]);
    const out = newCollection(src, (_ctx, o) => ({ metadata: { name: o.v > 1 ? `${o.metadata.name}-big` : o.metadata.name }, v: o.v }));
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    src.updateObject(obj('a', 2));
    expect(out.getKey('a')).toBeUndefined();
    expect(out.getKey('a-big')?.v).toBe(2);
    src.updateObject(obj('a', 1));
    src.updateObject(obj('a', 0));
    expect(seen).toEqual(['add/a=1', 'add/a-big=2', 'delete/a', 'add/a=1', 'delete/a-big', 'update/a=0']);
    expect([...out.list()].map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('should keep a contested key with its owner when the owner reruns, and hand it on when the owner lets go', () => {
    log = captureLog();
    const src = newStaticCollection<Obj>([obj('a', 1), obj('b', 1)]);
    // b claims a's key while its value is 1: a conflict, a keeps the key.
    const out = newCollection(src, (_ctx, o) => ({
      metadata: { name: o.metadata.name === 'b' && o.v === 1 ? 'a' : o.metadata.name },
      v: o.v * 10 + (o.metadata.name === 'a' ? 1 : 2),
    }));
    expect(out.getKey('a')?.v).toBe(11);
    src.updateObject(obj('a', 3)); // the owner reruns: it keeps the key, b still waits
    expect(out.getKey('a')?.v).toBe(31);
    src.updateObject(obj('a', 4));
    expect(out.getKey('a')?.v).toBe(41);
    src.deleteObject('a'); // the owner lets go: b's output takes the key
    expect(out.getKey('a')?.v).toBe(12);
  });

  it('should keep the last good output of an input whose rerun fails, and settle its next good run', () => {
    log = captureLog();
    const src = newStaticCollection<Obj>([obj('a', 1)]);
    const out = newCollection(src, (_ctx, o) => {
      if (o.v < 0) throw new Error('negative');
      return { metadata: { name: o.metadata.name }, v: o.v };
    });
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    src.updateObject(obj('a', -1));
    expect(out.getKey('a')?.v).toBe(1);
    src.updateObject(obj('a', 3));
    src.updateObject(obj('a', 3));
    expect(seen).toEqual(['add/a=1', 'update/a=3']);
  });
});

// A first output named like its input, which nobody else produces, is claimed without staging; while the
// collection builds its initial state, without noting it for a batch either (the state reaches handlers as
// their replay).
describe('DerivedCollection claiming a first output named like its input', () => {
  interface Obj {
    metadata: { name: string };
    v: number;
  }
  const obj = (name: string, v: number): Obj => ({ metadata: { name }, v });
  const label = (e: { type: string; old?: Obj; new?: Obj }): string =>
    `${e.type}/${(e.new ?? e.old)!.metadata.name}${e.new ? `=${e.new.v}` : ''}`;
  // An input with a negative value produces nothing; `alias` names its output after another input.
  const transform = (_ctx: unknown, o: Obj & { alias?: string }): Obj | undefined =>
    o.v < 0 ? undefined : { metadata: { name: o.alias ?? o.metadata.name }, v: o.v };

  it('should build its initial state without a batch, and replay it to a handler', () => {
    const src = newStaticCollection<Obj>([obj('a', 1), obj('b', -1), obj('c', 3)]);
    const out = newCollection(src, transform);
    expect(internal(out).size).toBe(2);
    expect(Object.isFrozen(out.getKey('a'))).toBe(true);
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    expect(seen).toEqual(['add/a=1', 'add/c=3']);
  });

  it('should emit an add for a first output after the build, and for an input that produced nothing before', () => {
    const src = newStaticCollection<Obj>([obj('b', -1)]);
    const out = newCollection(src, transform);
    const seen: string[] = [];
    out.register((e) => void seen.push(label(e)));
    src.updateObject(obj('a', 1));
    src.updateObject(obj('b', 2));
    batch(() => {
      src.updateObject(obj('c', 3));
      src.deleteObject('c');
    });
    expect(seen).toEqual(['add/a=1', 'add/b=2']);
    expect(internal(out).size).toBe(2);
    expect(out.getKey('c')).toBeUndefined();
  });

  it('should leave a key another input produces with that input, in the build and after it', () => {
    const log = captureLog();
    try {
      const src = newStaticCollection<Obj & { alias?: string }>([{ ...obj('x', 9), alias: 'a' }, obj('a', 1)]);
      const out = newCollection(src, transform);
      // x came first and produces "a": a's own output waits behind it.
      expect(out.getKey('a')?.v).toBe(9);
      src.deleteObject('x');
      expect(out.getKey('a')?.v).toBe(1);
      src.updateObject({ ...obj('y', 7), alias: 'b' });
      src.updateObject(obj('b', 2));
      expect(out.getKey('b')?.v).toBe(7);
      expect(internal(out).size).toBe(2);
    } finally {
      log.restore();
    }
  });
});
