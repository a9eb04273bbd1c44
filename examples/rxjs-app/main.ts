// `npm run example:rxjs-app`: the spending-alerts pipeline on live Subjects, printing alerts as they happen.
import { Subject } from 'rxjs';
import type { Event } from 'rxkrt';
import { spendingAlerts, type Order } from './pipeline.js';

/** Feeds a few orders through the pipeline and returns the alerts it printed. */
export async function runSpendingAlerts(print: (line: string) => void = console.log): Promise<string[]> {
  const orders$ = new Subject<Event<Order>>();
  const customers$ = new Subject<Event<string>[]>();
  const { alerts$, totals } = spendingAlerts(orders$, customers$, 100);
  const alerts: string[] = [];
  const sub = alerts$.subscribe((a) => {
    alerts.push(a);
    print(`ALERT ${a}`);
  });
  const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
  customers$.next([
    { type: 'add', new: 'ann' },
    { type: 'add', new: 'bob' },
  ]);
  const orders: Order[] = [
    { id: 'o1', customer: 'ann', amount: 60 },
    { id: 'o2', customer: 'bob', amount: 30 },
    { id: 'o3', customer: 'ann', amount: 55 },
    { id: 'o4', customer: 'bob', amount: 90 },
  ];
  for (const o of orders) {
    orders$.next({ type: 'add', new: o });
    await tick();
  }
  for (const t of totals.list()) print(`${t.customer}: ${t.total} over ${t.orders} order(s)`);
  sub.unsubscribe();
  return alerts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runSpendingAlerts().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
