import { describe, it, expect } from '@jest/globals';
import { combineLatest, map } from 'rxjs';
import {
  batch,
  compute$,
  fetch,
  collectionFromEvents,
  filterKey,
  filterLabel,
  newStaticCollection,
  query$,
  queryOne$,
  TransformError,
  UsageError,
} from '../../src/index.js';
import { add, createMarbleScheduler, update } from '../../src/testing/index.js';
import { liveCollections } from '../../src/engine/liveCollections.js';
import { captureLog } from '../helpers/fixtures.js';

interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  ip?: string;
}
const pod = (name: string, app: string, ip?: string): Pod => ({
  metadata: { name, namespace: 'ns', labels: { app } },
  ...(ip ? { ip } : {}),
});
const names = (ps: readonly Pod[]): string => ps.map((p) => p.metadata.name).join(',') || '-';

describe('query$', () => {
  it('should emit the filtered list at once and again only when a change touches it', () => {
    createMarbleScheduler().run(({ cold, expectObservable }) => {
      const source = cold('a-b-c-d', {
        a: [add(pod('w1', 'web')), add(pod('d1', 'db'))],
        b: add(pod('d2', 'db')),
        c: update(pod('w1', 'web'), pod('w1', 'web', '10.0.0.1')),
        d: add(pod('w2', 'web')),
      });
      const pods = collectionFromEvents<Pod>(source);
      // At once: the empty list of a collection whose first frame is not applied yet, then that frame.
      expectObservable(query$(pods, filterLabel({ app: 'web' })).pipe(map(names))).toBe('(za)b-c', {
        z: '-',
        a: 'w1',
        b: 'w1',
        c: 'w1,w2',
      });
    });
  });

  it('should emit once per transaction, after it committed', () => {
    const pods = newStaticCollection<Pod>([pod('w1', 'web')]);
    const seen: string[] = [];
    query$(pods, filterLabel({ app: 'web' })).subscribe((ps) => seen.push(`${names(ps)} (${pods.list().length} pods)`));
    batch(() => {
      pods.updateObject(pod('w2', 'web'));
      pods.updateObject(pod('w3', 'web'));
      pods.updateObject(pod('d1', 'db'));
    });
    expect(seen).toEqual(['w1 (1 pods)', 'w1,w2,w3 (4 pods)']);
  });

  it('should combine with other live queries in a service, glitch-free', () => {
    const pods = newStaticCollection<Pod>([pod('w1', 'web'), pod('d1', 'db')]);
    const seen: string[] = [];
    combineLatest([query$(pods, filterLabel({ app: 'web' })), query$(pods, filterLabel({ app: 'db' }))])
      .pipe(map(([w, d]) => `${w.length} web, ${d.length} db`))
      .subscribe((s) => seen.push(s));
    pods.updateObject(pod('w2', 'web'));
    expect(seen).toEqual(['1 web, 1 db', '2 web, 1 db']);
  });

  it('should stop its query collection when unsubscribed', () => {
    const pods = newStaticCollection<Pod>([], { name: 'QueriedPods' });
    const sub = query$(pods).subscribe();
    expect(liveCollections().some((c) => c.name === 'query$(QueriedPods)')).toBe(true);
    sub.unsubscribe();
    expect(liveCollections().some((c) => c.name === 'query$(QueriedPods)')).toBe(false);
  });

  it('should refuse something that is not a collection at the call', () => {
    expect(() => query$(null as never)).toThrow(UsageError);
  });
});

describe('compute$', () => {
  it('should show one transaction whole where combineLatest over two query$ streams shows it half done', () => {
    const pods = newStaticCollection<Pod>([pod('w1', 'web'), pod('d1', 'db')]);
    const halves: string[] = [];
    combineLatest([query$(pods, filterLabel({ app: 'web' })), query$(pods, filterLabel({ app: 'db' }))]).subscribe(([w, d]) =>
      halves.push(`${w.length}/${d.length}`),
    );
    const whole: string[] = [];
    compute$(
      (ctx) => `${fetch(ctx, pods, filterLabel({ app: 'web' })).length}/${fetch(ctx, pods, filterLabel({ app: 'db' })).length}`,
    ).subscribe((s) => whole.push(s));
    batch(() => {
      pods.updateObject(pod('w2', 'web'));
      pods.updateObject(pod('d2', 'db'));
    });
    expect(halves).toEqual(['1/1', '2/1', '2/2']);
    expect(whole).toEqual(['1/1', '2/2']);
  });

  it('should refuse a computation that is not a function at the call', () => {
    expect(() => compute$(3 as never)).toThrow(UsageError);
  });
});

describe('queryOne$', () => {
  it('should emit the one object, each change to it, undefined when gone, and error when two match', () => {
    const pods = newStaticCollection<Pod>([pod('w1', 'web')]);
    const seen: Array<string | undefined> = [];
    let failure: unknown;
    queryOne$(pods, filterKey('ns/w1')).subscribe({ next: (p) => seen.push(p?.ip ?? p?.metadata.name), error: (e) => (failure = e) });
    pods.updateObject(pod('w1', 'web', '10.0.0.1'));
    pods.updateObject(pod('other', 'web'));
    pods.deleteObject('ns/w1');
    expect(seen).toEqual(['w1', '10.0.0.1', undefined]);

    const log = captureLog();
    queryOne$(pods, filterLabel({ app: 'web' })).subscribe({ error: (e) => (failure = e) });
    pods.updateObject(pod('w9', 'web'));
    log.restore();
    expect(log.lines).toEqual([expect.stringContaining('found 2 objects')]);
    expect(failure).toBeInstanceOf(TransformError);
    expect(String(failure)).toContain('fetchOne');
  });
});
