// newInformer on a quiet watch: the informer ends a watch that sends nothing for `watchTimeoutMs` (30 s by
// default) and must treat that as a normal end. A real API server bookmarks about once a minute, so a quiet
// resource on a real cluster takes this path every half minute. In a file of its own: it waits out the
// default timer on the real clock (newInformer.virtualTime.spec.ts does it in virtual time), and jest runs
// files side by side.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { setLogger } from '../../src/index.js';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { Harness, Replica, expectConverged, requestsTo, serverVersions, until } from '../helpers/kube.js';

const cm = (name: string): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: {} });
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** The informer ends a watch after this long without a line (its default `watchTimeoutMs`). */
const CLIENT_WATCH_TIMEOUT_MS = 30_000;

describe('newInformer on a watch that stays quiet past the client timeout', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  it(
    'should watch again from its resourceVersion, with no error, no second LIST and nothing emitted again',
    async () => {
      // Bookmarks every two minutes, as rarely as a real server's: nothing reaches the watch while it is quiet.
      const server = await h.server({ bookmarkIntervalMs: 120_000 });
      const kc = server.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('before') });
      const cms = newInformer<V1ConfigMap>(kc, CM, { stop: h.stop() });
      const replica = new Replica(cms);
      expect(await cms.waitUntilSynced()).toBe(true);
      await until(() => server.openWatches() === 1, 'the first watch');
      const created = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('seen-live') });
      await until(() => replica.state.has('default/seen-live'), 'the live event');
      const batchesBefore = replica.batches.length;
      const started = Date.now();

      await until(() => informerStats(cms)!.watches === 2, 'a second watch after the client timeout', CLIENT_WATCH_TIMEOUT_MS + 15_000);
      // The second watch came from the watch timeout, not from anything the server did.
      expect(Date.now() - started).toBeGreaterThanOrEqual(CLIENT_WATCH_TIMEOUT_MS - 1_000);
      expect(replica.batches.length).toBe(batchesBefore);
      // It resumed where the first one stood: the resourceVersion of the last event it saw (or a later bookmark's).
      await until(() => requestsTo(server, 'GET', 'watch=true').length === 2, 'the second watch request at the server');
      const watches = requestsTo(server, 'GET', 'watch=true');
      const resumedAt = Number(new URL(watches[1]!, 'http://x').searchParams.get('resourceVersion'));
      expect(resumedAt).toBeGreaterThanOrEqual(Number(created.metadata!.resourceVersion));

      // The first watch is gone from the server (client-node aborted it) and the second is open.
      await until(() => server.openWatches() === 1, 'the second watch alone open');
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('after') });
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after a client-side watch timeout');
      expect(Object.keys(Object.fromEntries(replica.state)).sort()).toEqual(['default/after', 'default/before', 'default/seen-live']);
      expect(informerStats(cms)).toMatchObject({ lists: 1, relists: 0, errors: 0, watches: 2 });
      expect(replica.errors).toEqual([]);
    },
    CLIENT_WATCH_TIMEOUT_MS + 30_000,
  );
});
