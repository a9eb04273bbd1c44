import { describe, it, expect, afterEach } from '@jest/globals';
import {
  fetch,
  filterSelectsNonEmpty,
  newNamespaceIndex,
  newSingleton,
  newStaticCollection,
  newCollection,
  setStrictMode,
  isStrictMode,
  type Collection,
} from '../../src/index.js';
import { InvariantError } from '../../src/core/strict.js';

// White-box: strict mode must catch a corrupted engine, not just run quietly.
interface Named {
  metadata: { name: string; namespace: string };
  v: number;
}
const obj = (name: string, v: number): Named => ({ metadata: { name, namespace: 'ns' }, v });

describe('strict mode', () => {
  const was = isStrictMode();
  afterEach(() => setStrictMode(was));

  function graph(): { src: ReturnType<typeof newStaticCollection<Named>>; out: Collection<Named> } {
    const src = newStaticCollection<Named>([obj('a', 1), obj('b', 1)]);
    const out = newCollection(src, (_ctx, o) => ({ metadata: o.metadata, v: o.v * 10 }));
    return { src, out };
  }

  it('should throw an InvariantError naming the collection when an output loses its producer record', () => {
    setStrictMode(true);
    const { src, out } = graph();
    (out as unknown as { entries: Map<string, { owner: unknown }> }).entries.get('ns/b')!.owner = undefined;
    expect(() => src.updateObject(obj('a', 2))).toThrow(InvariantError);
    expect(() => src.updateObject(obj('a', 3))).toThrow(
      /collection "Collection\[\d+\]": input "ns\/b" produces "ns\/b" but is not listed as its producer/,
    );
  });

  it('should throw when a derived collection emits an update between equal values', () => {
    setStrictMode(true);
    const { out } = graph();
    const emit = (out as unknown as { emit(e: unknown[], keys: string[]): void }).emit.bind(out);
    expect(() => emit([{ type: 'update', old: obj('a', 10), new: obj('a', 10) }], ['ns/a'])).toThrow(
      /update between equal values for key "ns\/a"/,
    );
    expect(() => emit([{ type: 'add' }], ['ns/a'])).toThrow(/malformed add event/);
  });

  it("should throw when a batch carries a key that is not its event's, or one key twice", () => {
    setStrictMode(true);
    const { out } = graph();
    const emit = (out as unknown as { emit(e: unknown[], keys: string[]): void }).emit.bind(out);
    expect(() => emit([{ type: 'add', new: obj('a', 10) }], ['ns/b'])).toThrow(/emitted an event for "ns\/a" under key "ns\/b"/);
    expect(() => emit([{ type: 'add', new: obj('a', 10) }], [])).toThrow(/1 events with 0 keys/);
    expect(() =>
      emit(
        [
          { type: 'add', new: obj('a', 10) },
          { type: 'delete', old: obj('a', 10) },
        ],
        ['ns/a', 'ns/a'],
      ),
    ).toThrow(/two events for key "ns\/a"/);
  });

  it('should throw when a selector lookup no longer mirrors the collection or the index group it serves', () => {
    setStrictMode(true);
    interface Svc {
      metadata: { name: string; namespace: string };
      spec: { selector: Record<string, string> };
    }
    const svc = (name: string, app: string): Svc => ({ metadata: { name, namespace: 'ns' }, spec: { selector: { app } } });
    const services = newStaticCollection<Svc>(
      Array.from({ length: 10 }, (_, i) => svc(`s${i}`, `a${i}`)),
      { name: 'Services' },
    );
    const byNs = newNamespaceIndex(services);
    newSingleton(
      (ctx) =>
        fetch(ctx, services, filterSelectsNonEmpty({ app: 'a1' })).length +
        byNs.fetch(ctx, 'ns', filterSelectsNonEmpty({ app: 'a2' })).length,
    );
    type Lookup = { slots: Map<string, { value: unknown }> };
    const whole = (services as unknown as { indexes: { lookup: Lookup } }).indexes.lookup;
    const group = (services as unknown as { indexes: { all: { lookups: Map<string, Lookup> }[] } }).indexes.all[0]!.lookups.get('ns')!;
    // A value the lookup did not see: the collection's own lookup.
    whole.slots.get('ns/s3')!.value = svc('s3', 'other');
    expect(() => services.updateObject(svc('s0', 'a0'))).toThrow(
      /collection "Services": selector lookup is missing the current value of "ns\/s3"/,
    );
    whole.slots.get('ns/s3')!.value = services.getKey('ns/s3');
    // A lost object: the index group's lookup.
    group.slots.delete('ns/s5');
    expect(() => services.updateObject(svc('s0', 'a0'))).toThrow(/index "namespace", group "ns": selector lookup holds 9 keys, the set 10/);
  });

  it('should check nothing when strict mode is off', () => {
    setStrictMode(false);
    const { src, out } = graph();
    (out as unknown as { entries: Map<string, { owner: unknown }> }).entries.get('ns/b')!.owner = undefined;
    expect(() => src.updateObject(obj('a', 2))).not.toThrow();
    expect(out.getKey('ns/a')?.v).toBe(20);
  });
});
