import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { BehaviorSubject, map, queueScheduler } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { singletonFromValues, newSingleton, fetch, setLogger, TransformError } from '../../src/index.js';
import { createMarbleScheduler, eventsToStrings } from '../../src/testing/index.js';

interface Config {
  mode: string;
  replicas?: number;
}

describe('singletonFromValues', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = createMarbleScheduler();
    setLogger({ warn() {}, error() {} });
  });
  afterEach(() => setLogger());

  it('should follow the source frame by frame on value$, starting from undefined', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const a: Config = { mode: 'strict' };
      const b: Config = { mode: 'lenient' };
      const config = singletonFromValues<Config>(cold('-a-b-u', { a, b, u: undefined }));
      expectObservable(config.value$).toBe('ua-b-u', { u: undefined, a, b });
      // The collection face emits add, update, delete.
      expectObservable(eventsToStrings(config.asCollection().events$)).toBe('-a-b-d', {
        a: 'add/static',
        b: 'update/static',
        d: 'delete/static',
      });
    });
  });

  it('should sync at the first value, undefined included', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const config = singletonFromValues<Config>(cold('--u', { u: undefined }));
      expectObservable(cold('-x-y').pipe(map(() => [config.hasSynced(), config.get()]))).toBe('-f-t', {
        f: [false, undefined],
        t: [true, undefined],
      });
    });
  });

  it('should sync, holding undefined, when the source completes without a value', () => {
    // The contract names only the first value; a completed source will never send one, so the value is known.
    testScheduler.run(({ cold, expectObservable }) => {
      const config = singletonFromValues<Config>(cold('--|'));
      expectObservable(cold('-x-y').pipe(map(() => config.hasSynced()))).toBe('-f-t', { f: false, t: true });
    });
  });

  it('should keep the last value when the source completes', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const a: Config = { mode: 'strict' };
      const config = singletonFromValues<Config>(cold('-a|', { a }));
      expectObservable(config.value$).toBe('ua', { u: undefined, a });
      expectObservable(cold('----x').pipe(map(() => config.get()))).toBe('----a', { a });
    });
  });

  it('should apply a burst inside one frame as one transaction in which the last value wins', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const c: Config = { mode: 'c' };
      const config = singletonFromValues<Config>(cold('-(abc)', { a: { mode: 'a' }, b: { mode: 'b' }, c }));
      const batches: string[] = [];
      config.asCollection().registerBatch((batch) => {
        batches.push(batch.map((e) => `${e.type}:${e.new?.mode ?? ''}`).join(','));
      });
      expectObservable(config.value$).toBe('uc', { u: undefined, c });
      testScheduler.schedule(() => expect(batches).toEqual(['add:c']), 2);
    });
  });

  it('should emit nothing for a value equal to the current one', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const a: Config = { mode: 'strict', replicas: 2 };
      const config = singletonFromValues<Config>(
        cold('-a-b-c', { a, b: { mode: 'strict', replicas: 2 }, c: { mode: 'strict', replicas: 3 } }),
      );
      expectObservable(config.value$).toBe('ua---c', { u: undefined, a, c: { mode: 'strict', replicas: 3 } });
      expectObservable(eventsToStrings(config.asCollection().events$)).toBe('-a---c', { a: 'add/static', c: 'update/static' });
    });
  });

  it('should emit one value$ change when a string value changes key (a delete and an add in one batch)', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const mode = singletonFromValues<string>(cold('-a-b', { a: 'strict', b: 'lenient' }));
      expectObservable(mode.value$).toBe('ua-b', { u: undefined, a: 'strict', b: 'lenient' });
      expectObservable(eventsToStrings(mode.asCollection().events$, { sort: true })).toBe('-a-b', {
        a: 'add/strict',
        b: 'add/lenient,delete/strict',
      });
    });
  });

  it('should propagate to a derived singleton in the same frame', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const config = singletonFromValues<Config>(
        cold('-a-b-c', { a: { mode: 'x', replicas: 1 }, b: { mode: 'y', replicas: 1 }, c: { mode: 'y', replicas: 5 } }),
      );
      const replicas = newSingleton((ctx) => fetch(ctx, config.asCollection())[0]?.replicas ?? 0);
      // b changes the mode only: the derived value is unchanged, so value$ stays quiet.
      expectObservable(replicas.value$).toBe('zo---f', { z: 0, o: 1, f: 5 });
    });
  });

  it('should report a source error on errors$ and keep the last value', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const a: Config = { mode: 'strict' };
      const boom = new Error('config stream broke');
      const config = singletonFromValues<Config>(cold('-a-#', { a }, boom), { name: 'Config' });
      expectObservable(config.asCollection().errors$.pipe(map((e) => [e instanceof TransformError, e.collection, e.error]))).toBe('---e', {
        e: [true, 'Config', boom],
      });
      expectObservable(config.value$).toBe('ua', { u: undefined, a });
      expectObservable(cold('-----x').pipe(map(() => [config.get(), config.hasSynced()]))).toBe('-----s', { s: [a, true] });
    });
  });

  it('should unsubscribe from the source when stopped, and apply nothing after', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a: Config = { mode: 'a' };
      const source = cold('-a---b', { a, b: { mode: 'b' } });
      const stop = new AbortController();
      const config = singletonFromValues<Config>(source, { stop: stop.signal });
      testScheduler.schedule(() => stop.abort(), 3);
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectObservable(config.value$).toBe('ua', { u: undefined, a });
      expectObservable(cold('-------x').pipe(map(() => config.get()))).toBe('-------a', { a });
    });
  });

  it('should not subscribe to the source when its stop signal has already fired', () => {
    testScheduler.run(({ cold, expectSubscriptions }) => {
      const source = cold('-a', { a: { mode: 'a' } });
      singletonFromValues<Config>(source, { stop: AbortSignal.abort() });
      expectSubscriptions(source.subscriptions).toBe([]);
    });
  });

  it('should apply every value at once on a synchronous scheduler', () => {
    const values = new BehaviorSubject<Config>({ mode: 'a' });
    const config = singletonFromValues<Config>(values, { scheduler: queueScheduler });
    expect([config.get(), config.hasSynced()]).toEqual([{ mode: 'a' }, true]);
    values.next({ mode: 'b' });
    expect(config.get()).toEqual({ mode: 'b' });
    values.next({ mode: 'c' });
    expect(config.get()).toEqual({ mode: 'c' });
  });
});
