import { describe, it, expect } from '@jest/globals';
import { newManyFromNothing, newStaticCollection, newStatic, fetch } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { subscribers, sortedBatches } from '../helpers/fixtures.js';

describe('newManyFromNothing', () => {
  it('should derive a whole collection from what its one transform fetches', () => {
    const a = newStaticCollection<string>(['x']);
    const b = newStatic<string>('y');
    const out = newManyFromNothing((ctx) => [...fetch(ctx, a), ...fetch(ctx, b.asCollection())].map((s) => `${s}!`));
    expect(out.list().sort()).toEqual(['x!', 'y!']);
    const t = trackEvents(out, { runExistingState: false, batches: true });
    a.updateObject('z');
    expect(sortedBatches(t)).toEqual(['add/z!']);
    b.set('w');
    expect(sortedBatches(t)).toEqual(['add/w!,delete/y!']);
    a.deleteObject('x');
    expect(sortedBatches(t)).toEqual(['delete/x!']);
    expect(out.list().sort()).toEqual(['w!', 'z!']);
  });

  it('should be empty for an undefined or null result', () => {
    expect(newManyFromNothing(() => undefined).list()).toEqual([]);
    expect(newManyFromNothing(() => null).list()).toEqual([]);
  });

  it('should sync when what it fetched syncs, and unsubscribe when stopped', async () => {
    const a = newStaticCollection<string>([], { synced: false });
    const ac = new AbortController();
    const out = newManyFromNothing((ctx) => fetch(ctx, a), { stop: ac.signal, metadata: { k: 'v' } });
    expect(out.metadata()).toEqual({ k: 'v' });
    expect(out.hasSynced()).toBe(false);
    a.markSynced();
    expect(await out.waitUntilSynced()).toBe(true);
    expect(subscribers(a)).toBe(1);
    ac.abort();
    expect(subscribers(a)).toBe(0);
  });
});
