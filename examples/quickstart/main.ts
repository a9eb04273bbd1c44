// Pods and services in, endpoints out: rxkrt recomputes only what a change touches.
import { newStaticCollection, newCollection, fetch, filterLabel } from 'rxkrt';

type Pod = { metadata: { name: string; namespace: string; labels: Record<string, string> }; ip: string };
type Service = { metadata: { name: string; namespace: string }; selector: Record<string, string> };

const pods = newStaticCollection<Pod>([], { name: 'Pods' });
const services = newStaticCollection<Service>([], { name: 'Services' });

// A pure transform: which pod IPs back each service. fetch() records what it read.
const endpoints = newCollection(services, (ctx, svc) => ({
  metadata: svc.metadata,
  ips: fetch(ctx, pods, filterLabel(svc.selector)).map((p) => p.ip),
}));

endpoints.register((e) => console.log(e.type, e.new?.ips ?? []));

services.updateObject({ metadata: { name: 'web', namespace: 'prod' }, selector: { app: 'web' } }); // add []
pods.updateObject({ metadata: { name: 'web-1', namespace: 'prod', labels: { app: 'web' } }, ip: '10.0.0.1' }); // update ['10.0.0.1']
pods.updateObject({ metadata: { name: 'db-1', namespace: 'prod', labels: { app: 'db' } }, ip: '10.0.0.9' }); // no event: not selected
pods.deleteObject('prod/web-1'); // update []
