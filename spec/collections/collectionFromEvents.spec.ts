import { messageOf } from '../helpers/fixtures.js';
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { map, of, queueScheduler, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { collectionFromEvents, newCollection, setLogger, TransformError, KeyError, type Collection, type Event } from '../../src/index.js';
import { add, update, del, createMarbleScheduler, eventsToStrings } from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ip?: string;
}
const pod = (name: string, ip?: string): Pod => ({ metadata: { name, namespace: 'ns' }, ip });

/** A derived collection used throughout: pods with an IP. */
const podIPs = (pods: Collection<Pod>) =>
  newCollection(pods, (_ctx, p) => (p.ip ? { metadata: p.metadata, ip: p.ip } : undefined), { name: 'PodIPs' });

describe('collectionFromEvents', () => {
  let testScheduler: TestScheduler;
  const logged: string[] = [];
  beforeEach(() => {
    testScheduler = createMarbleScheduler();
    logged.length = 0;
    setLogger({ warn: (a, b?: string) => logged.push(messageOf(a, b)), error: (a, b?: string) => logged.push(messageOf(a, b)) });
  });
  afterEach(() => setLogger());

  it('should apply each frame as one transaction and propagate it to derived collections in the same frame', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a-b-c-d-e', {
        a: add(pod('a')),
        b: update(pod('a'), pod('a', '10.0.0.1')),
        c: add(pod('b', '10.0.0.2')),
        d: update(pod('a', '10.0.0.1'), pod('a', '10.0.0.3')),
        e: del(pod('a', '10.0.0.3')),
      });
      const pods = collectionFromEvents<Pod>(source, { name: 'Pods' });
      const ips = podIPs(pods);
      expectObservable(eventsToStrings(pods.events$)).toBe('-a-b-c-d-e', {
        a: 'add/ns/a',
        b: 'update/ns/a',
        c: 'add/ns/b',
        d: 'update/ns/a',
        e: 'delete/ns/a',
      });
      // The pod without an IP produces nothing, so frame 1 is silent downstream.
      expectObservable(eventsToStrings(ips.events$)).toBe('---b-c-d-e', {
        b: 'add/ns/a',
        c: 'add/ns/b',
        d: 'update/ns/a',
        e: 'delete/ns/a',
      });
    });
  });

  it('should replay the current state as one batch of adds to a late subscriber, then live batches', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('-a-b---c', { a: add(pod('a')), b: add(pod('b')), c: del(pod('a')) }));
      expectObservable(eventsToStrings(pods.events$, { sort: true }), '----^').toBe('----r--c', {
        r: 'add/ns/a,add/ns/b',
        c: 'delete/ns/a',
      });
    });
  });

  it('should sync at the first emission, an empty array included', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold<readonly Event<Pod>[]>('--a---b', { a: [], b: [add(pod('a', '1'))] }));
      const ips = podIPs(pods);
      const probe = cold('-x-y').pipe(map(() => [pods.hasSynced(), ips.hasSynced()]));
      expectObservable(probe).toBe('-f-t', { f: [false, false], t: [true, true] });
      // The empty array changes nothing, so no batch is emitted for it.
      expectObservable(eventsToStrings(pods.events$)).toBe('------b', { b: 'add/ns/a' });
    });
  });

  it('should sync when the source completes without emitting', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('---|'));
      const probe = cold('--x-y').pipe(map(() => pods.hasSynced()));
      expectObservable(probe).toBe('--f-t', { f: false, t: true });
      expectObservable(pods.events$).toBe('');
    });
  });

  it('should stay unsynced while the source has neither emitted nor completed', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('-------'));
      const ips = podIPs(pods);
      expectObservable(cold('------x').pipe(map(() => pods.hasSynced() || ips.hasSynced()))).toBe('------f', { f: false });
    });
  });

  it('should apply a burst inside one frame as one transaction and one batch, folding events per key', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<Event<Pod> | readonly Event<Pod>[]>('-(abc)-d', {
        a: add(pod('a', '1')),
        b: [add(pod('b', '2')), add(pod('c', '3'))],
        c: update(pod('a', '1'), pod('a', '9')),
        d: [del(pod('b', '2')), del(pod('c', '3'))],
      });
      const pods = collectionFromEvents<Pod>(source);
      const ips = podIPs(pods);
      const ipBatches: string[][] = [];
      ips.registerBatch((b) => {
        ipBatches.push(b.map((e) => `${e.type}:${e.new?.ip ?? e.old?.ip}`));
      });
      // (abc) spans frames 1–5: the group is emitted at frame 1 and the marble then resumes at frame 6.
      expectObservable(eventsToStrings(pods.events$, { sort: true })).toBe('-x-----y', {
        x: 'add/ns/a,add/ns/b,add/ns/c',
        y: 'delete/ns/b,delete/ns/c',
      });
      testScheduler.schedule(() => {
        // One batch for the burst downstream as well, and pod a arrives with its last value only.
        expect(ipBatches.map((b) => [...b].sort())).toEqual([['add:2', 'add:3', 'add:9']]);
      }, 2);
    });
  });

  it('should report a source error on errors$ and keep the last state', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const boom = new Error('watch failed');
      const pods = collectionFromEvents<Pod>(cold('-a-#', { a: add(pod('a', '1')) }, boom), { name: 'Pods' });
      const ips = podIPs(pods);
      expectObservable(pods.errors$.pipe(map((e) => [e instanceof TransformError, e.collection, e.key, e.error]))).toBe('---e', {
        e: [true, 'Pods', undefined, boom],
      });
      // events$ neither errors nor completes: the collection outlives its source.
      expectObservable(eventsToStrings(pods.events$)).toBe('-a', { a: 'add/ns/a' });
      expectObservable(cold('-----x').pipe(map(() => [pods.list().length, ips.getKey('ns/a')?.ip, pods.hasSynced()]))).toBe('-----s', {
        s: [1, '1', true],
      });
    });
  });

  it('should stay unsynced when the source errors before its first emission', () => {
    // Contract is silent; a source that never delivered a state has no complete initial state to offer.
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('--#'));
      expectObservable(pods.errors$.pipe(map((e) => e.message))).toBe('--e', { e: expect.stringContaining('source Observable errored') });
      expectObservable(cold('----x').pipe(map(() => pods.hasSynced()))).toBe('----f', { f: false });
    });
  });

  it('should report bad events and skip them while applying the rest of the batch', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const bad = [
        { type: 'upsert', new: pod('x') },
        { type: 'add' },
        { type: 'delete' },
        add({ spec: 'no key' }),
        null,
      ] as unknown as Event<Pod>[];
      const pods = collectionFromEvents<Pod>(cold('-a', { a: [bad[0]!, add(pod('a')), bad[1]!, bad[2]!, bad[3]!, bad[4]!] }), {
        name: 'Pods',
      });
      expectObservable(eventsToStrings(pods.events$)).toBe('-a', { a: 'add/ns/a' });
      const errors: TransformError[] = [];
      pods.errors$.subscribe((e) => errors.push(e));
      testScheduler.schedule(() => {
        expect(errors).toHaveLength(5);
        expect(errors.every((e) => e.collection === 'Pods' && e.message.includes('bad event'))).toBe(true);
        expect(errors[3]!.error).toBeInstanceOf(KeyError);
        expect(pods.hasSynced()).toBe(true);
      }, 2);
    });
  });

  it('should unsubscribe from the source when stopped, and apply nothing after', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d', { a: add(pod('a', '1')), b: add(pod('b', '2')), c: add(pod('c', '3')), d: add(pod('d', '4')) });
      const stop = new AbortController();
      const pods = collectionFromEvents<Pod>(source, { stop: stop.signal });
      const ips = podIPs(pods);
      testScheduler.schedule(() => stop.abort(), 4);
      expectSubscriptions(source.subscriptions).toBe('^---!');
      expectObservable(eventsToStrings(ips.events$)).toBe('-a-b', { a: 'add/ns/a', b: 'add/ns/b' });
      expectObservable(
        cold('--------x').pipe(
          map(() =>
            pods
              .list()
              .map((p) => p.metadata.name)
              .sort(),
          ),
        ),
      ).toBe('--------s', {
        s: ['a', 'b'],
      });
    });
  });

  it('should not subscribe to the source when its stop signal has already fired', () => {
    testScheduler.run(({ cold, expectSubscriptions }) => {
      const source = cold('-a', { a: add(pod('a')) });
      const pods = collectionFromEvents<Pod>(source, { stop: AbortSignal.abort() });
      expectSubscriptions(source.subscriptions).toBe([]);
      expect(pods.list()).toEqual([]);
    });
  });

  it('should drop a buffered but unflushed burst when stopped', () => {
    testScheduler.run(({ flush }) => {
      const subject = new Subject<Event<Pod>>();
      const stop = new AbortController();
      const pods = collectionFromEvents<Pod>(subject, { stop: stop.signal });
      subject.next(add(pod('a')));
      expect(pods.list()).toEqual([]);
      stop.abort();
      expect(subject.observed).toBe(false);
      flush();
      expect(pods.list()).toEqual([]);
      expect(pods.hasSynced()).toBe(false);
    });
  });

  it('should stop delivering to an events$ subscriber that unsubscribed', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = collectionFromEvents<Pod>(cold('-a-b-c', { a: add(pod('a')), b: add(pod('b')), c: add(pod('c')) }));
      expectObservable(eventsToStrings(pods.events$), '^--!').toBe('-a', { a: 'add/ns/a' });
      expectObservable(eventsToStrings(pods.events$), '----^-!').toBe('----rc', { r: 'add/ns/a,add/ns/b', c: 'add/ns/c' });
    });
  });

  it('should flush on the scheduler given in options', () => {
    const queued: Array<() => void> = [];
    const manual: SchedulerLike = {
      now: () => 0,
      schedule(work: () => void): Subscription {
        queued.push(() => work.call(undefined as never));
        return { unsubscribe() {} } as Subscription;
      },
    } as SchedulerLike;
    const subject = new Subject<Event<Pod>>();
    const pods = collectionFromEvents<Pod>(subject, { scheduler: manual });
    const batches: string[] = [];
    pods.registerBatch((b) => {
      batches.push(b.map((e) => e.type).join(','));
    });
    subject.next(add(pod('a')));
    subject.next(add(pod('b')));
    expect(pods.list()).toEqual([]);
    expect(queued).toHaveLength(1);
    queued.shift()!();
    expect(batches).toEqual(['add,add']);
    expect(pods.hasSynced()).toBe(true);
  });

  it('should apply every emission at once, each as its own transaction, on a synchronous scheduler', () => {
    const all = collectionFromEvents<Pod>(of(add(pod('a')), [add(pod('b')), add(pod('c'))]), { scheduler: queueScheduler });
    expect(
      all
        .list()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    expect(all.hasSynced()).toBe(true);

    const subject = new Subject<Event<Pod>>();
    const pods = collectionFromEvents<Pod>(subject, { scheduler: queueScheduler });
    const batches: string[] = [];
    pods.registerBatch((b) => {
      batches.push(b.map((e) => `${e.type}/${e.new?.metadata.name ?? e.old?.metadata.name}`).join(','));
    });
    subject.next(add(pod('a')));
    subject.next(add(pod('b')));
    subject.next(del(pod('a')));
    expect(batches).toEqual(['add/a', 'add/b', 'delete/a']);
  });
});
