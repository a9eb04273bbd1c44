// An rxkrt pipeline inside a plain RxJS app: order events in, per-customer totals and alerts out.
import { asapScheduler, filter, map, mergeMap, type Observable, type SchedulerLike } from 'rxjs';
import {
  collectionFromEvents,
  compute$,
  fetch,
  filterGeneric,
  filterIndex,
  newCollection,
  newIndex,
  type Collection,
  type Event,
} from 'rxkrt';

export interface Order {
  readonly id: string;
  readonly customer: string;
  readonly amount: number;
}

export interface CustomerTotal {
  readonly customer: string;
  readonly total: number;
  readonly orders: number;
  resourceName(): string;
}

/**
 * Orders arrive as events on an Observable (from a queue, a websocket, a Kubernetes watch…); customers
 * is the set of known customer ids. Emits an alert each time a customer's total crosses `limit`.
 */
export function spendingAlerts(
  orders$: Observable<Event<Order> | readonly Event<Order>[]>,
  customers$: Observable<Event<string> | readonly Event<string>[]>,
  limit: number,
  scheduler: SchedulerLike = asapScheduler,
): { orders: Collection<Order>; totals: Collection<CustomerTotal>; alerts$: Observable<string> } {
  const orders = collectionFromEvents<Order>(orders$, { name: 'Orders', key: (o: Order) => o.id, scheduler });
  const customers = collectionFromEvents<string>(customers$, { name: 'Customers', scheduler });
  const byCustomer = newIndex(orders, 'customer', (o) => [o.customer]);
  const totals = newCollection(
    customers,
    (ctx, customer): CustomerTotal => {
      const mine = fetch(ctx, orders, filterIndex(byCustomer, customer));
      const total = mine.reduce((s, o) => s + o.amount, 0);
      return { customer, total, orders: mine.length, resourceName: () => customer };
    },
    { name: 'Totals', equals: (a: CustomerTotal, b: CustomerTotal) => a.total === b.total && a.orders === b.orders },
  );
  // From here on it is ordinary RxJS: batches of events, flattened and filtered.
  const alerts$ = totals.events$.pipe(
    mergeMap((batch) => batch),
    filter((e) => e.new !== undefined && e.new.total > limit && (e.old === undefined || e.old.total <= limit)),
    map((e) => `${e.new!.customer} is over ${limit}: ${e.new!.total}`),
  );
  return { orders, totals, alerts$ };
}

/**
 * A live dashboard line: the top spender and how many large orders there are. One `compute$` reads both
 * collections, so a transaction that changes both (a large order also changes its customer's total) shows
 * whole: `combineLatest` over two `query$` streams would first show one side changed and not the other.
 */
export function dashboard$(orders: Collection<Order>, totals: Collection<CustomerTotal>, large: number): Observable<string> {
  return compute$((ctx) => {
    const top = fetch(ctx, totals).reduce<CustomerTotal | undefined>(
      (best, t) => (best === undefined || t.total > best.total ? t : best),
      undefined,
    );
    const big = fetch(
      ctx,
      orders,
      filterGeneric((o: Order) => o.amount >= large),
    ).length;
    return `top: ${top === undefined ? '-' : `${top.customer} ${top.total}`}, large orders: ${big}`;
  });
}
