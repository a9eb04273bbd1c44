// Live queries and per-key streams: a collection read from RxJS, outside any transform.
import { combineLatest, from, map } from 'rxjs';
import { batch, filterLabel, newStaticCollection, query$ } from 'rxkrt';

interface Pod {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  ready: boolean;
}
const pod = (name: string, app: string, ready = true): Pod => ({ metadata: { name, namespace: 'shop', labels: { app } }, ready });

const pods = newStaticCollection<Pod>([pod('web-1', 'web'), pod('db-1', 'db')]);

// The object under one key: now, then each change to it (undefined while absent).
pods.get$('shop/web-1').subscribe((p) => console.log('web-1 ready:', p?.ready));

// A live fetch: emits again only when a change touches its result, once per transaction.
const web$ = query$(pods, filterLabel({ app: 'web' }));
const db$ = query$(pods, filterLabel({ app: 'db' }));
combineLatest([web$, db$])
  .pipe(map(([web, db]) => `${web.filter((p) => p.ready).length}/${web.length} web ready, ${db.length} db`))
  .subscribe((line) => console.log(line));

// A collection is an InteropObservable of its event batches.
from(pods).subscribe((events) => console.log('batch:', events.map((e) => `${e.type} ${(e.new ?? e.old).metadata.name}`).join(', ')));

batch(() => {
  pods.updateObject(pod('web-2', 'web', false));
  pods.updateObject(pod('web-1', 'web', false));
});
pods.updateObject(pod('db-2', 'db'));
