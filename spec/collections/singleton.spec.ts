import { describe, it, beforeEach } from '@jest/globals';
import type { TestScheduler } from 'rxjs/testing';
import { batch, fetch, newSingleton, newStatic, newStaticCollection } from '../../src/index.js';
import { createMarbleScheduler, eventsToStrings } from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ready: boolean;
}
const pod = (name: string, ready = true): Pod => ({ metadata: { name, namespace: 'ns' }, ready });

// SingletonView is the Singleton face shared by newStatic, newSingleton and singletonFromValues;
// these specs pin down its value$ stream.
describe('Singleton.value$', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = createMarbleScheduler();
  });

  it('should emit the current value on subscribe, then each change', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const mode = newStatic<string>('strict');
      cold('--a-b-u', { a: 'lenient', b: 'off', u: undefined }).subscribe((v) => mode.set(v));
      expectObservable(mode.value$).toBe('s-a-b-u', { s: 'strict', a: 'lenient', b: 'off', u: undefined });
    });
  });

  it('should give a late subscriber the value current at its subscription', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const mode = newStatic<string>(undefined);
      cold('-a---b', { a: 'x', b: 'y' }).subscribe((v) => mode.set(v));
      expectObservable(mode.value$, '---^').toBe('---a-b', { a: 'x', b: 'y' });
    });
  });

  it('should stop emitting once unsubscribed', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const mode = newStatic<string>('a');
      cold('-b-c', { b: 'b', c: 'c' }).subscribe((v) => mode.set(v));
      expectObservable(mode.value$, '^-!').toBe('ab', { a: 'a', b: 'b' });
    });
  });

  it('should not emit values equal to the last one, even when the collection emits an update', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = newStaticCollection<Pod>([pod('a')]);
      // equals: () => false makes every recomputation an update event; value$ must still be distinct by equals.
      const summary = newSingleton((ctx) => ({ total: fetch(ctx, pods).length }), { equals: () => false });
      cold('-a-b-c', { a: pod('a', false), b: pod('b'), c: pod('b', false) }).subscribe((p) => pods.updateObject(p));
      expectObservable(summary.value$).toBe('o--t', { o: { total: 1 }, t: { total: 2 } });
    });
  });

  it('should emit once per transaction, never an intermediate value', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const pods = newStaticCollection<Pod>([]);
      const ready = newSingleton((ctx) => fetch(ctx, pods).filter((p) => p.ready).length);
      cold('-a-b', { a: [pod('a'), pod('b'), pod('c')], b: [pod('a', false), pod('b', false)] }).subscribe((ps) =>
        batch(() => ps.forEach((p) => pods.updateObject(p))),
      );
      expectObservable(ready.value$).toBe('za-b', { z: 0, a: 3, b: 1 });
    });
  });

  it('should emit one change when a string value changes key (a delete and an add in one batch)', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const names = newStaticCollection<Pod>([pod('a')]);
      const first = newSingleton(
        (ctx) =>
          fetch(ctx, names)
            .map((p) => p.metadata.name)
            .sort()[0],
      );
      cold('-a-d', { a: () => names.updateObject(pod('0')), d: () => names.deleteObject('ns/0') }).subscribe((f) => f());
      expectObservable(first.value$).toBe('az-a', { a: 'a', z: '0' });
      expectObservable(eventsToStrings(first.asCollection().events$, { sort: true })).toBe('rd-e', {
        r: 'add/a',
        d: 'add/0,delete/a',
        e: 'add/a,delete/0',
      });
    });
  });
});
