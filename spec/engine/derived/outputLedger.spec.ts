import { describe, it, expect } from '@jest/globals';
import { OutputLedger } from '../../../src/engine/derived/outputLedger.js';
import { KeyEntry } from '../../../src/engine/derived/keyEntry.js';
import type { Event } from '../../../src/index.js';
import { equals } from '../../../src/core/equals.js';
import type { TransformError } from '../../../src/core/errors.js';

// White-box: the output side of a derived collection, driven directly. Inputs are entries marked as inputs;
// `apply` gives an input its outputs (one key and value, or none), as a recompute would.
interface Out {
  name: string;
  v: number;
}

function ledger() {
  const entries = new Map<string, KeyEntry<Out>>();
  const state = new Map<string, Out>();
  const batches: string[][] = [];
  const errors: string[] = [];
  const l = new OutputLedger<Out>(entries, {
    name: 'Ledger',
    eq: equals,
    visibleChanged: (k, old, v) => {
      expect(state.get(k)).toBe(old);
      if (v === undefined) state.delete(k);
      else state.set(k, v);
    },
    entryDropped: (k) => {
      // Only an entry that left, holding nothing visible, is reported.
      expect(entries.has(k)).toBe(false);
      expect(state.has(k)).toBe(false);
    },
    emitBatch: (events: Event<Out>[], keys: readonly string[]) =>
      batches.push(events.map((e, i) => `${e.type}/${keys[i]}${e.new ? `=${e.new.v}` : ''}`)),
    reportError: (e: TransformError) => errors.push(e.message),
  });
  const input = (key: string): KeyEntry<Out> => {
    const e = entries.get(key) ?? new KeyEntry<Out>(key);
    e.isInput = true;
    entries.set(key, e);
    return e;
  };
  const produce = (from: KeyEntry<Out>, key: string, v: number): void => l.apply(from, key, { name: key, v }, undefined);
  const nothing = (from: KeyEntry<Out>): void => l.apply(from, '', undefined, undefined);
  const produceMany = (from: KeyEntry<Out>, outputs: Record<string, number>): void =>
    l.apply(from, '', undefined, new Map(Object.entries(outputs).map(([k, v]) => [k, { name: k, v }])));
  const commit = (): void => {
    l.reportConflicts();
    l.emitChanged();
  };
  return { l, entries, state, batches, errors, input, produce, produceMany, nothing, commit };
}

describe('OutputLedger', () => {
  it('should give a key to its first producer, queue the second (reported), and hand over as one update', () => {
    const t = ledger();
    const a = t.input('a');
    const b = t.input('b');
    t.produce(a, 'out', 1);
    t.commit();
    t.produce(b, 'out', 2);
    t.commit();
    expect(t.errors).toEqual([expect.stringMatching(/output key "out" is already produced by input "a"; that input keeps it/)]);
    expect(t.state.get('out')?.v).toBe(1);
    t.nothing(a);
    t.commit();
    expect(t.batches).toEqual([['add/out=1'], ['update/out=2']]);
    expect(t.entries.get('out')?.owner).toBe(b);
    expect(t.l.visibleCount).toBe(1);
  });

  it('should keep a waiting input in line once when it goes from several outputs to that one', () => {
    const t = ledger();
    const a = t.input('a');
    const b = t.input('b');
    t.produce(a, 'out', 1);
    t.commit();
    t.produceMany(b, { out: 2, other: 3 });
    t.commit();
    // b still produces out, now as its only output: the same wait, not a second place in line or a second report.
    t.produce(b, 'out', 4);
    t.commit();
    expect(t.entries.get('out')?.waiting).toEqual([b]);
    expect(t.errors).toHaveLength(1);
    t.nothing(a);
    t.commit();
    expect(t.state.get('out')?.v).toBe(4);
    t.nothing(b);
    t.commit();
    expect(t.state.has('out')).toBe(false);
    expect(t.entries.has('out')).toBe(false);
    expect(t.batches).toEqual([['add/out=1'], ['add/other=3'], ['delete/other'], ['update/out=4'], ['delete/out']]);
  });

  it('should not report a conflict resolved within the flush', () => {
    const t = ledger();
    const a = t.input('a');
    const b = t.input('b');
    t.produce(a, 'out', 1);
    t.commit();
    t.produce(b, 'out', 2);
    t.nothing(a);
    t.commit();
    expect(t.errors).toEqual([]);
    expect(t.batches).toEqual([['add/out=1'], ['update/out=2']]);
  });

  it('should emit one event per key per batch: released and produced again is an update, changed and back is nothing', () => {
    const t = ledger();
    const a = t.input('a');
    const b = t.input('b');
    t.produce(a, 'x', 1);
    t.produce(b, 'y', 1);
    t.commit();
    t.nothing(a); // x emptied ...
    t.produce(b, 'x', 5); // ... and taken by another input in the same batch
    t.produce(a, 'z', 1);
    t.nothing(a); // z added and removed within the batch
    t.commit();
    expect(t.batches[1]).toEqual(['update/x=5', 'delete/y']);
    t.produce(b, 'x', 6);
    t.produce(b, 'x', 5); // back to the value before the batch
    t.commit();
    expect(t.batches).toHaveLength(2);
    expect([...t.entries.keys()].sort()).toEqual(['a', 'b', 'x']);
  });

  it("should keep an output in its input's own entry when keyed alike, and drop output-only entries once empty", () => {
    const t = ledger();
    const a = t.input('a');
    t.produce(a, 'a', 1);
    t.produce(t.input('b'), 'other', 1);
    t.commit();
    expect(t.entries.get('a')).toBe(a);
    expect(a.owner).toBe(a);
    t.nothing(t.input('b'));
    t.l.settleChanged();
    expect(t.entries.has('other')).toBe(false);
    expect(t.entries.has('b')).toBe(true);
    expect(t.batches).toEqual([['add/a=1', 'add/other=1']]);
    expect(t.l.visibleCount).toBe(1);
    expect([...t.state.keys()]).toEqual(['a']);
  });
  describe('an input replacing its own output (the sole change of a batch)', () => {
    const own = (t: ReturnType<typeof ledger>, key: string, v: number): KeyEntry<Out> => {
      const e = t.input(key);
      t.produce(e, key, v);
      return e;
    };
    const replace = (t: ReturnType<typeof ledger>, e: KeyEntry<Out>, v: number): void => {
      e.oneValue = { name: e.key, v };
      t.l.replaceOwn(e, e.oneValue);
    };

    it('should emit it as one update, and keep the state and the count in step', () => {
      const t = ledger();
      const a = own(t, 'a', 1);
      t.commit();
      replace(t, a, 2);
      expect(t.state.get('a')?.v).toBe(2);
      t.commit();
      expect(t.batches).toEqual([['add/a=1'], ['update/a=2']]);
      expect(a.changed).toBe(false);
      expect(t.l.visibleCount).toBe(1);
    });

    it('should keep the order of first change when more changes join it, and fold a second change of its key', () => {
      const t = ledger();
      const a = own(t, 'a', 1);
      const b = own(t, 'b', 1);
      t.commit();
      replace(t, a, 2);
      t.produce(b, 'b', 5);
      t.produce(t.input('c'), 'c', 1);
      t.commit();
      expect(t.batches[1]).toEqual(['update/a=2', 'update/b=5', 'add/c=1']);
      replace(t, b, 6);
      replace(t, b, 5); // back to the value before the batch: nothing
      t.commit();
      expect(t.batches).toHaveLength(2);
      replace(t, a, 3);
      t.nothing(a); // replaced, then released: a delete of the value before the batch
      t.commit();
      expect(t.batches[2]).toEqual(['delete/a']);
      expect(t.state.has('a')).toBe(false);
      expect(t.l.visibleCount).toBe(2);
    });

    it('should end without a batch when settled, as the initial state is', () => {
      const t = ledger();
      const a = own(t, 'a', 1);
      t.l.settleChanged();
      replace(t, a, 2);
      t.l.settleChanged();
      t.commit();
      expect(t.batches).toEqual([]);
      expect(a.changed).toBe(false);
      expect(t.state.get('a')?.v).toBe(2);
    });
  });
});
