// An informer against a real (embedded) API server, with every timer on a virtual clock stepped by hand.
import { CoreV1Api } from '@kubernetes/client-node';
import { VirtualTimeScheduler } from 'rxjs';
import { setLogger } from 'rxkrt';
import { informerStats, newInformer } from 'rxkrt/kube';
import { startApiServer } from 'rxkrt/testing';

setLogger({}); // quiet: the failures below are on purpose
const server = await startApiServer();
const kc = server.kubeConfig();
await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a' } } });
server.failNext(3, 500); // the next three requests (the informer's LISTs) fail

const clock = new VirtualTimeScheduler(); // time moves only when we move it
const stop = new AbortController();
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' };
const cms = newInformer(kc, configMaps, { timerScheduler: clock, backoff: { jitter: false }, stop: stop.signal });
cms.errors$.subscribe(() => console.log(`${clock.now()} ms: LIST failed`));
cms.events$.subscribe((batch) => {
  for (const e of batch) console.log(`${clock.now()} ms: ${e.type} ${(e.new ?? e.old).metadata?.name}`);
});

/** Real I/O happens between steps: wait for it, then run the next timer (the backoff) in virtual time. */
async function stepWhenWaiting(): Promise<void> {
  while (informerStats(cms)?.state !== 'waiting') await new Promise((r) => setTimeout(r, 5));
  clock.maxFrames = clock.actions[0]!.delay;
  clock.flush();
}
for (let i = 0; i < 3; i++) await stepWhenWaiting();
await cms.waitUntilSynced();
console.log(`synced at ${clock.now()} ms of virtual time`);

stop.abort();
await server.close();
setLogger();
