import { describe, it, expect } from '@jest/globals';
import { batch, fetch, newCollection, newRecomputeTrigger, newSingleton, newStatic, newStaticCollection } from '../../src/index.js';
import { trackEvents } from '../../src/testing/index.js';

describe('newRecomputeTrigger', () => {
  it('should hold dependants unsynced until markSynced, then rerun them on demand (krt TestRecomputeTrigger)', () => {
    const trigger = newRecomputeTrigger({ startSynced: false });
    const inputs = newStatic<string>('foo');
    let external = 'foo';
    const col = newCollection(inputs.asCollection(), (ctx, _in) => {
      trigger.markDependant(ctx);
      return external;
    });
    expect(col.hasSynced()).toBe(false);
    const t = trackEvents(col);
    expect(t.registration.hasSynced()).toBe(false);
    t.expectOrdered('add/foo');
    trigger.markSynced();
    expect(col.hasSynced()).toBe(true);
    expect(t.registration.hasSynced()).toBe(true);

    external = 'bar';
    // A string output is its own key: a changed string is a delete plus an add (in one batch, in no set order).
    trigger.triggerRecomputation();
    t.expectUnordered('delete/foo', 'add/bar');
    external = 'baz';
    trigger.triggerRecomputation();
    t.expectUnordered('delete/bar', 'add/baz');
  });

  it('should keep several dependants unsynced until markSynced, and leave the others alone', () => {
    const trigger = newRecomputeTrigger({ startSynced: false });
    const items = newStaticCollection<string>(['a', 'b']);
    const dependant = newCollection(items, (ctx, i) => {
      trigger.markDependant(ctx);
      return i;
    });
    const downstream = newCollection(dependant, (_ctx, i) => `${i}!`);
    const independent = newCollection(items, (_ctx, i) => i);
    expect([dependant.hasSynced(), downstream.hasSynced(), independent.hasSynced()]).toEqual([false, false, true]);
    // Contents are there all along: rxkrt never blocks, it only withholds the synced flag.
    expect(downstream.list().sort()).toEqual(['a!', 'b!']);
    trigger.markSynced();
    expect([dependant.hasSynced(), downstream.hasSynced()]).toEqual([true, true]);
  });

  it('should not unsync a synced collection whose later runs start depending on an unsynced trigger', () => {
    const trigger = newRecomputeTrigger({ startSynced: false });
    const gate = newStatic<string>('closed');
    let external = 1;
    const value = newSingleton((ctx) => {
      if (fetch(ctx, gate.asCollection())[0] === 'open') trigger.markDependant(ctx);
      return external;
    });
    expect(value.hasSynced()).toBe(true);
    gate.set('open');
    expect(value.hasSynced()).toBe(true);
    // The dependency is live even though the trigger has not synced.
    external = 2;
    trigger.triggerRecomputation();
    expect(value.get()).toBe(2);
  });

  it('should start synced by default', () => {
    const trigger = newRecomputeTrigger();
    const s = newSingleton((ctx) => {
      trigger.markDependant(ctx);
      return 1;
    });
    expect(s.hasSynced()).toBe(true);
  });

  it('should rerun only the inputs that called markDependant in their last run', () => {
    const trigger = newRecomputeTrigger();
    const items = newStaticCollection<string>(['a', 'b', 'c']);
    const runs: string[] = [];
    newCollection(items, (ctx, i) => {
      runs.push(i);
      if (i !== 'b') trigger.markDependant(ctx);
      return i;
    });
    runs.length = 0;
    trigger.triggerRecomputation();
    expect(runs.sort()).toEqual(['a', 'c']);
  });

  it('should rerun each dependant once for several triggers in one transaction', () => {
    const trigger = newRecomputeTrigger();
    let runs = 0;
    newSingleton((ctx) => {
      runs++;
      trigger.markDependant(ctx);
      return runs;
    });
    runs = 0;
    batch(() => {
      trigger.triggerRecomputation();
      trigger.triggerRecomputation();
      trigger.triggerRecomputation();
    });
    expect(runs).toBe(1);
  });

  it('should emit nothing downstream when the rerun produces the same output', () => {
    const trigger = newRecomputeTrigger();
    const s = newSingleton((ctx) => {
      trigger.markDependant(ctx);
      return { mode: 'same' };
    });
    const t = trackEvents(s.asCollection());
    t.expectOrdered('add/static');
    trigger.triggerRecomputation();
    t.expectEmpty();
  });
});
