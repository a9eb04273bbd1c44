// White-box: the base of map, join and Index.asCollection: touched keys recomputed once per flush, the diff emitted.
import { describe, it, expect } from '@jest/globals';
import { KEEP, KeyedView } from '../../src/engine/keyedView.js';
import { internal, type InternalCollection } from '../../src/engine/internalCollection.js';
import { batch, newStaticCollection, type CollectionOptions, type Event } from '../../src/index.js';

type Cell = { metadata: { name: string }; v: number };
const cell = (name: string, v: number): Cell => ({ metadata: { name }, v });

/** Doubles each value; `keep` names keys whose value must stay as it is, and `admitted` counts what was handed out. */
class Doubled extends KeyedView<Cell> {
  readonly computed: string[] = [];
  readonly admitted: Cell[] = [];
  keep = new Set<string>();

  constructor(
    private readonly src: InternalCollection<Cell>,
    opts?: CollectionOptions,
  ) {
    super([src], opts, 'Doubled');
    this.init(
      opts,
      [...src.values()].map((c) => c.metadata.name),
    );
  }

  protected compute(key: string): Cell | undefined | typeof KEEP {
    this.computed.push(key);
    if (this.keep.has(key)) return KEEP;
    const c = this.src.getKey(key);
    return c === undefined ? undefined : cell(key, c.v * 2);
  }

  protected override admit(value: Cell): Cell {
    this.admitted.push(value);
    return Object.freeze(value);
  }
}

const describeBatch = (b: readonly Event<Cell>[]): string =>
  b.map((e) => `${e.type}/${(e.new ?? e.old)!.metadata.name}=${(e.new ?? e.old)!.v}`).join(',');

describe('KeyedView', () => {
  it('should compute the upstream keys at construction without emitting them, and be synced with its upstream', () => {
    const src = newStaticCollection<Cell>([cell('a', 1), cell('b', 2)], { synced: false });
    const view = new Doubled(internal(src));
    expect(view.list().map((c) => c.v)).toEqual([2, 4]);
    expect(view.hasSynced()).toBe(false);
    src.markSynced();
    expect(view.hasSynced()).toBe(true);
  });

  it('should compute a key touched several times in one transaction once, and emit the difference from before it', () => {
    const src = newStaticCollection<Cell>([cell('a', 1)]);
    const view = new Doubled(internal(src));
    const seen: string[] = [];
    view.registerBatch((b) => void seen.push(describeBatch(b)), false);
    view.computed.length = 0;
    batch(() => {
      src.updateObject(cell('a', 5));
      src.updateObject(cell('a', 6));
      src.updateObject(cell('b', 1));
    });
    expect(view.computed).toEqual(['a', 'b']);
    expect(seen).toEqual(['update/a=12,add/b=2']);
    src.deleteObject('b');
    expect(seen[1]).toBe('delete/b=2');
  });

  it('should emit nothing for an equal value, and admit only values that become visible', () => {
    const src = newStaticCollection<Cell>([cell('a', 1)]);
    const view = new Doubled(internal(src));
    const seen: string[] = [];
    view.registerBatch((b) => void seen.push(describeBatch(b)), false);
    view.admitted.length = 0;
    src.updateObject(cell('a', 1));
    expect(seen).toEqual([]);
    expect(view.admitted).toEqual([]);
    src.updateObject(cell('a', 2));
    expect(view.admitted).toEqual([cell('a', 4)]);
    expect(Object.isFrozen(view.getKey('a'))).toBe(true);
  });

  it('should leave a key as it is when compute says KEEP', () => {
    const src = newStaticCollection<Cell>([cell('a', 1)]);
    const view = new Doubled(internal(src));
    view.keep.add('a');
    src.updateObject(cell('a', 7));
    expect(view.getKey('a')!.v).toBe(2);
    src.deleteObject('a');
    expect(view.getKey('a')!.v).toBe(2);
  });

  it('should let go of its upstream when stopped, and ignore later batches', () => {
    const src = newStaticCollection<Cell>([cell('a', 1)]);
    const before = internal(src).subscriberCount();
    const stop = new AbortController();
    const view = new Doubled(internal(src), { stop: stop.signal });
    expect(internal(src).subscriberCount()).toBe(before + 1);
    stop.abort();
    expect(internal(src).subscriberCount()).toBe(before);
    src.updateObject(cell('a', 9));
    expect(view.getKey('a')!.v).toBe(2);
  });
});
