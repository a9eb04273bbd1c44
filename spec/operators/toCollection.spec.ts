import { describe, it, expect } from '@jest/globals';
import { map, NEVER, of, Subject, switchMap } from 'rxjs';
import { toCollection, type Collection } from '../../src/index.js';
import { add, createMarbleScheduler, del, eventsToStrings, update } from '../../src/testing/index.js';
import { liveCollections } from '../../src/engine/liveCollections.js';
import { captureLog } from '../helpers/fixtures.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;
const item = (name: string, n: number): Item => ({ name, n });
const describeItem = { key: (i: Item) => `${i.name}=${i.n}` };

describe('toCollection', () => {
  it('should apply event batches and single events, one transaction per frame', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c', {
        a: [add(item('x', 1)), add(item('y', 1))],
        b: update(item('x', 1), item('x', 2)),
        c: del(item('y', 1)),
      });
      const out = source.pipe(
        toCollection<Item>({ key: byName }),
        switchMap((c) => eventsToStrings(c.events$, describeItem)),
      );
      expectObservable(out).toBe('-a-b-c', { a: 'add/x=1,add/y=1', b: 'update/x=2', c: 'delete/y=1' });
    });
  });

  it('should apply each snapshot as its difference, in one transaction', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c', { a: [item('x', 1), item('y', 1)], b: [item('x', 2), item('y', 1)], c: [item('y', 1)] });
      const out = source.pipe(
        toCollection<Item>({ key: byName, snapshots: true }),
        switchMap((c) => eventsToStrings(c.events$, describeItem)),
      );
      expectObservable(out).toBe('-a-b-c', { a: 'add/x=1,add/y=1', b: 'update/x=2', c: 'delete/x=2' });
    });
  });

  it('should sync at the first emission, or at completion of a source that emitted nothing', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const synced = (c: Collection<Item>) => c.events$.pipe(map(() => c.hasSynced()));
      expectObservable(
        cold('--a', { a: [item('x', 1)] }).pipe(toCollection<Item>({ key: byName, snapshots: true }), switchMap(synced)),
      ).toBe('--t', { t: true });
      let c: Collection<Item> | undefined;
      cold<Item[]>('---|')
        .pipe(toCollection<Item>({ key: byName, snapshots: true }))
        .subscribe((x) => (c = x));
      expectObservable(cold('----a').pipe(map(() => c?.hasSynced()))).toBe('----t', { t: true });
    });
  });

  it('should keep the last state and report on errors$ when the source errors, and never complete by itself', () => {
    const log = captureLog();
    const source = new Subject<readonly Item[]>();
    let c: Collection<Item> | undefined;
    let completed = false;
    const sub = source
      .pipe(toCollection<Item>({ key: byName, snapshots: true }))
      .subscribe({ next: (x) => (c = x), complete: () => (completed = true) });
    const errors: string[] = [];
    c!.errors$.subscribe((e) => errors.push(e.message));
    source.next([item('x', 1)]);
    source.error(new Error('feed broke'));
    expect(c!.list()).toEqual([item('x', 1)]);
    expect(errors).toEqual([expect.stringContaining('feed broke')]);
    expect(completed).toBe(false);
    expect(log.lines).toEqual([expect.stringContaining('source Observable errored: feed broke')]);
    log.restore();
    sub.unsubscribe();
  });

  it('should stop the collection when unsubscribed', () => {
    const sub = NEVER.pipe(toCollection<Item>({ name: 'ToCollectionLifetime' })).subscribe();
    expect(liveCollections().some((c) => c.name === 'ToCollectionLifetime')).toBe(true);
    sub.unsubscribe();
    expect(liveCollections().some((c) => c.name === 'ToCollectionLifetime')).toBe(false);
  });

  it('should keep the collection of a completed source for as long as someone is subscribed', () => {
    let c: Collection<Item> | undefined;
    const sub = of([item('x', 1)])
      .pipe(toCollection<Item>({ key: byName, snapshots: true }))
      .subscribe((x) => (c = x));
    expect(c!.list()).toEqual([item('x', 1)]);
    expect(liveCollections()).toContain(c);
    sub.unsubscribe();
    expect(liveCollections()).not.toContain(c);
  });
});
