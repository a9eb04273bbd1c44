// Operators: an Observable of snapshots becomes a collection, a derived collection, and its changes.
import { Subject } from 'rxjs';
import { changes, deriveCollection, toCollection } from 'rxkrt';

interface Price {
  sku: string;
  cents: number;
}

const feed = new Subject<Price[]>();
const subscription = feed
  .pipe(
    toCollection<Price>({ snapshots: true, key: (p) => p.sku, name: 'Prices' }),
    deriveCollection((_ctx, p: Price) => (p.cents >= 1000 ? { sku: p.sku, euros: p.cents / 100 } : undefined), {
      key: (e) => e.sku,
      name: 'Expensive',
    }),
    changes(),
  )
  .subscribe(({ key, event }) => console.log(event.type, key, event.new?.euros ?? '-'));

feed.next([
  { sku: 'a', cents: 500 },
  { sku: 'b', cents: 1500 },
]);
feed.next([
  { sku: 'a', cents: 1200 },
  { sku: 'b', cents: 1500 },
]);
feed.next([{ sku: 'a', cents: 1200 }]);
// Unsubscribing stops both collections the pipeline built.
subscription.unsubscribe();
