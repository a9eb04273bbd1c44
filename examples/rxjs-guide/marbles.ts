// A marble test of a pipeline: virtual time, one frame per transaction, expectations as diagrams.
import { map, switchMap } from 'rxjs';
import { deriveCollection, toCollection, type Event } from 'rxkrt';
import { add, createMarbleScheduler, del, update } from 'rxkrt/testing';

interface Order {
  id: string;
  cents: number;
}

/** Throws a MarbleMismatchError (with both timelines) when the pipeline does not do what the diagram says. */
export function checkOrderTotals(): void {
  createMarbleScheduler().run(({ cold, expectObservable }) => {
    const orders$ = cold<Event<Order>>('-a-b-c-d', {
      a: add({ id: 'o1', cents: 250 }),
      b: add({ id: 'o2', cents: 100 }),
      c: update({ id: 'o1', cents: 250 }, { id: 'o1', cents: 300 }),
      d: del({ id: 'o2', cents: 100 }),
    });
    const total$ = orders$.pipe(
      toCollection<Order>({ key: (o) => o.id }),
      deriveCollection((_ctx, o: Order) => ({ id: o.id, euros: o.cents / 100 }), { key: (o) => o.id }),
      switchMap((c) => c.events$.pipe(map(() => c.list().reduce((s, o) => s + o.euros, 0)))),
    );
    expectObservable(total$).toBe('-a-b-c-d', { a: 2.5, b: 3.5, c: 4, d: 3 });
  });
}
