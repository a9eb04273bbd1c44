import { describe, it, expect } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import type { Event } from '../../src/index.js';
import { dashboard$, spendingAlerts, type Order } from '../../examples/rxjs-app/pipeline.js';
import { runConfigMapCountDemo } from '../../examples/configmap-count/main.js';

const add = <T>(v: T): Event<T> => ({ type: 'add', new: v });
const upd = <T>(o: T, n: T): Event<T> => ({ type: 'update', old: o, new: n });

describe('rxjs-app example', () => {
  it('should raise one alert per limit crossing, frame by frame', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ cold, hot, expectObservable }) => {
      const o1: Order = { id: 'o1', customer: 'ann', amount: 60 };
      const o2: Order = { id: 'o2', customer: 'ann', amount: 50 };
      const o3: Order = { id: 'o3', customer: 'bob', amount: 200 };
      const o2b: Order = { ...o2, amount: 10 };
      const o2c: Order = { ...o2, amount: 70 };
      const customers$ = cold('a', { a: [add('ann'), add('bob')] });
      const orders$ = hot('   -a-b-c-d-e', { a: add(o1), b: add(o2), c: add(o3), d: upd(o2, o2b), e: upd(o2b, o2c) });
      const { alerts$, totals } = spendingAlerts(orders$, customers$, 100, ts);
      expectObservable(alerts$).toBe('---x-y---z', { x: 'ann is over 100: 110', y: 'bob is over 100: 200', z: 'ann is over 100: 130' });
      ts.flush();
      expect(totals.getKey('ann')?.total).toBe(130);
    });
  });
});

describe('rxjs-app dashboard', () => {
  it('should show each transaction whole: a large order changes the total and the count in one line', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ cold, hot, expectObservable }) => {
      const customers$ = cold('a', { a: [add('ann'), add('bob')] });
      const orders$ = hot('   -----a-b-c-d', {
        a: add<Order>({ id: 'o1', customer: 'ann', amount: 60 }),
        b: add<Order>({ id: 'o2', customer: 'bob', amount: 150 }),
        c: add<Order>({ id: 'o3', customer: 'ann', amount: 5 }),
        d: upd<Order>({ id: 'o2', customer: 'bob', amount: 150 }, { id: 'o2', customer: 'bob', amount: 40 }),
      });
      const { orders, totals } = spendingAlerts(orders$, customers$, 1000, ts);
      // A line per transaction that changed it; o3 (frame 9) leaves it as it was, so nothing is emitted.
      expectObservable(dashboard$(orders, totals, 100)).toBe('(zy)-a-b---d', {
        z: 'top: -, large orders: 0',
        y: 'top: ann 0, large orders: 0',
        a: 'top: ann 60, large orders: 0',
        b: 'top: bob 150, large orders: 1',
        d: 'top: ann 65, large orders: 0',
      });
    });
  });
});

describe('configmap-count example', () => {
  it('should count ConfigMaps on the embedded API server as they come and go', async () => {
    const lines: string[] = [];
    const seen = await runConfigMapCountDemo((l) => lines.push(l));
    // Creations close together may land in one transaction, so intermediate counts can be skipped.
    expect(seen[0]).toBe(0);
    expect(seen.slice(-2)).toEqual([3, 2]);
    for (let i = 1; i < seen.length - 1; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    expect(lines.at(-1)).toBe('configmaps: 2');
  });
});

describe('rxjs-app example (live)', () => {
  it('should print alerts on real schedulers as orders stream in', async () => {
    const { runSpendingAlerts } = await import('../../examples/rxjs-app/main.js');
    const lines: string[] = [];
    expect(await runSpendingAlerts((l) => lines.push(l))).toEqual(['ann is over 100: 115', 'bob is over 100: 120']);
    expect(lines).toContain('ann: 115 over 2 order(s)');
  });
});
