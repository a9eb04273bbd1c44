// rxkrt's log lines through pino: setLogger takes a pino logger as it is (fields first, then the message).
import { pino } from 'pino';
import { newCollection, newStaticCollection, setLogger } from 'rxkrt';

interface Order {
  id: string;
  qty: number;
}

setLogger(pino({ level: 'debug' }));

const orders = newStaticCollection<Order>([], { name: 'Orders', key: (o: Order) => o.id });
const invoices = newCollection(
  orders,
  (_ctx, o) => {
    if (o.qty <= 0) throw new Error(`quantity must be positive, got ${o.qty}`);
    return { id: o.id, total: o.qty * 10 };
  },
  { name: 'Invoices', key: (i: { id: string }) => i.id },
);
orders.updateObject({ id: 'o1', qty: 2 });
// Logged once as a pino error line: {"level":50,"collection":"Invoices","key":"o2","err":{...},"msg":"collection \"Invoices\" key \"o2\": ..."}
orders.updateObject({ id: 'o2', qty: 0 });
console.log(JSON.stringify(invoices.list()));
