import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { collectionStats, newCollection, newStaticCollection, batch, type Collection } from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';

describe('collectionStats', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should count what a source and a derived collection have done, read at the moment of the call', () => {
    const src = newStaticCollection<string>(['a'], { name: 'Src' });
    const upper = newCollection(
      src,
      (_ctx, s) =>
        s === 'bad'
          ? (() => {
              throw new Error('no');
            })()
          : s.toUpperCase(),
      { name: 'Upper' },
    );
    expect(collectionStats(upper)).toEqual({
      name: 'Upper',
      uid: upper.uid,
      size: 1,
      batches: 0,
      events: 0,
      recomputations: 1,
      errors: 0,
      synced: true,
    });
    src.updateObject('b');
    batch(() => {
      src.updateObject('c');
      src.updateObject('d');
    });
    src.updateObject('bad');
    src.deleteObject('a');
    const s = collectionStats(src);
    expect([s.name, s.size, s.batches, s.events, s.recomputations, s.errors, s.synced]).toEqual(['Src', 4, 4, 5, 0, 0, true]);
    const u = collectionStats(upper);
    expect([u.size, u.batches, u.events, u.recomputations, u.errors]).toEqual([3, 3, 4, 5, 1]);
  });

  it('should report a collection that is not synced yet', () => {
    const src = newStaticCollection<string>([], { synced: false });
    expect(collectionStats(src).synced).toBe(false);
    src.markSynced();
    expect(collectionStats(src).synced).toBe(true);
  });

  it('should refuse an object that is not a collection built by rxkrt, naming it', () => {
    const foreign = { name: 'Mine', list: () => [] } as unknown as Collection<unknown>;
    expect(() => collectionStats(foreign)).toThrow(/Mine is not a collection built by rxkrt/);
  });
});
