import { describe, it, expect } from '@jest/globals';
import { fetchOne, filterKey, newStaticCollection, newStatusCollection, UsageError } from '../../src/index.js';
import { findCondition, isConditionTrue, setCondition, type Condition } from '../../src/kube/index.js';

const t0 = new Date('2026-12-03T09:00:00.123Z');
const t1 = new Date('2026-12-03T10:00:00Z');

describe('setCondition', () => {
  it('should append a new condition stamped with now, in RFC 3339 seconds', () => {
    expect(setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Pending' }, t0)).toEqual([
      { type: 'Ready', status: 'False', reason: 'Pending', lastTransitionTime: '2026-12-03T09:00:00Z' },
    ]);
  });

  it('should change lastTransitionTime only when status changes', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Pending', observedGeneration: 1 }, t0);
    const sameStatus = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'StillPending', message: 'waiting', observedGeneration: 2 },
      t1,
    );
    expect(sameStatus).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'StillPending',
        message: 'waiting',
        observedGeneration: 2,
        lastTransitionTime: '2026-12-03T09:00:00Z',
      },
    ]);
    const flipped = setCondition(sameStatus, { type: 'Ready', status: 'True', reason: 'Done' }, t1);
    expect(flipped).toEqual([{ type: 'Ready', status: 'True', reason: 'Done', lastTransitionTime: '2026-12-03T10:00:00Z' }]);
  });

  it('should return a new array, keep the order and leave the other conditions and the input untouched', () => {
    const list: readonly Condition[] = Object.freeze([
      Object.freeze({ type: 'A', status: 'True', lastTransitionTime: 'x' } as const),
      Object.freeze({ type: 'B', status: 'False', lastTransitionTime: 'y' } as const),
    ]);
    const out = setCondition(list, { type: 'A', status: 'False' }, t1);
    expect(out).not.toBe(list);
    expect(out.map((c) => c.type)).toEqual(['A', 'B']);
    expect(out[1]).toBe(list[1]);
    expect(list[0]!.status).toBe('True');
  });

  it('should return an equal list when nothing changed, so a transform emits nothing new', () => {
    const first = setCondition([], { type: 'Ready', status: 'True', reason: 'Ok' }, t0);
    expect(setCondition(first, { type: 'Ready', status: 'True', reason: 'Ok' }, t1)).toEqual(first);
  });

  it('should refuse a bad type or status, naming the value', () => {
    expect(() => setCondition([], { type: '', status: 'True' })).toThrow(UsageError);
    expect(() => setCondition([], { type: 'Ready', status: 'yes' as 'True' })).toThrow(
      /status of Ready must be True, False or Unknown, got "yes"/,
    );
  });
});

describe('findCondition / isConditionTrue', () => {
  const list = setCondition(setCondition([], { type: 'Ready', status: 'True' }, t0), { type: 'Degraded', status: 'Unknown' }, t0);
  it('should find by type and test for True', () => {
    expect(findCondition(list, 'Degraded')?.status).toBe('Unknown');
    expect(findCondition(list, 'Nope')).toBeUndefined();
    expect(findCondition(undefined, 'Ready')).toBeUndefined();
    expect(isConditionTrue(list, 'Ready')).toBe(true);
    expect(isConditionTrue(list, 'Degraded')).toBe(false);
    expect(isConditionTrue(null, 'Ready')).toBe(false);
  });
});

describe('conditions in a status collection transform', () => {
  interface Gadget {
    metadata: { name: string; namespace: string; generation: number };
    status?: { conditions?: Condition[] };
  }
  interface ConfigMap {
    metadata: { name: string; namespace: string };
  }

  it('should compute a Ready condition from what the transform fetched, keeping its time while it holds', () => {
    const gadgets = newStaticCollection<Gadget>([{ metadata: { name: 'g', namespace: 'ns', generation: 1 } }]);
    const configMaps = newStaticCollection<ConfigMap>([]);
    let now = t0;
    const [status] = newStatusCollection(gadgets, (ctx, g) => {
      const cm = fetchOne(ctx, configMaps, filterKey(`${g.metadata.namespace}/gadget-${g.metadata.name}`));
      const ready = cm !== undefined;
      const conditions = setCondition(
        g.status?.conditions,
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'ConfigMapReady' : 'ConfigMapMissing',
          observedGeneration: g.metadata.generation,
        },
        now,
      );
      return { status: { conditions } };
    });
    const ready = () => findCondition(status.getKey('ns/g')?.status.conditions, 'Ready');
    expect(ready()).toMatchObject({ status: 'False', reason: 'ConfigMapMissing', lastTransitionTime: '2026-12-03T09:00:00Z' });
    now = t1;
    configMaps.updateObject({ metadata: { name: 'gadget-g', namespace: 'ns' } });
    expect(ready()).toMatchObject({ status: 'True', reason: 'ConfigMapReady', lastTransitionTime: '2026-12-03T10:00:00Z' });
    // The written status comes back on the object: recomputing from it changes nothing.
    const before = status.getKey('ns/g');
    gadgets.updateObject({
      metadata: { name: 'g', namespace: 'ns', generation: 1 },
      status: { conditions: [...before!.status.conditions] },
    });
    expect(status.getKey('ns/g')?.status).toEqual(before!.status);
  });
});
