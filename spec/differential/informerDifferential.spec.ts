// Differential test through the Kubernetes path: random writes and random faults against the embedded API
// server, three informers (every ConfigMap; those labelled tier=web; those of namespace team-a), two of them
// feeding derived collections. At every checkpoint the informers must hold exactly what the server lists,
// every event must agree with the one before it for its key, and each derived collection must equal a
// from-scratch computation over what its informer holds. Faults: watches cut or failed in-stream, history
// compacted (410, then a relist), LISTs and WATCHes answered 5xx or late. `RXKRT_KUBE_DIFF_SEEDS=N` runs
// seeds 1..N (bug hunting); CI runs three.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { fetch, filterLabel, newCollection, newStaticCollection, setLogger, type Collection } from '../../src/index.js';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { seededRandom, type ApiServer } from '../../src/testing/index.js';
import { canonicalList } from '../helpers/canonical.js';
import { Harness, Replica, cutHoldAndCompact, expectConverged, isList, isWatch, serverVersions } from '../helpers/kube.js';
import { soak, soakDeadline, soakTimeout, type SeedRun } from '../helpers/soak.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const FAST = { initialMs: 5, maxMs: 50 };
const NAMESPACES = ['default', 'team-a'] as const;
const TIERS = ['web', 'db', 'batch'] as const;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// ---- the derivations, used by the transforms and by the from-scratch computation alike --------------------

interface Summary {
  metadata: { name: string; namespace: string };
  tier: string;
  value: string;
}
interface TierGroup {
  metadata: { name: string };
  members: string[];
}

function summaryOf(cm: V1ConfigMap): Summary {
  return {
    metadata: { name: cm.metadata!.name!, namespace: cm.metadata!.namespace! },
    tier: cm.metadata?.labels?.['tier'] ?? '',
    value: cm.data?.['v'] ?? '',
  };
}

function groupOf(tier: string, members: readonly V1ConfigMap[]): TierGroup {
  return { metadata: { name: tier }, members: members.map((m) => `${m.metadata!.namespace}/${m.metadata!.name}`).sort() };
}

// ---- random writes and faults ------------------------------------------------------------------------------

/** What the writer believes exists: key → its namespace and name. */
type Live = Map<string, { namespace: string; name: string }>;

async function randomWrite(core: CoreV1Api, live: Live, rand: () => number, i: number): Promise<string> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const keys = [...live.keys()];
  const r = rand();
  if (keys.length < 4 || (r < 0.35 && keys.length < 30)) {
    const namespace = pick(NAMESPACES);
    const name = `cm-${i}`;
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name, namespace, labels: { tier: pick(TIERS) } }, data: { v: String(i) } },
    });
    live.set(`${namespace}/${name}`, { namespace, name });
    return `create ${namespace}/${name}`;
  }
  const key = pick(keys);
  const { namespace, name } = live.get(key)!;
  if (r < 0.6) {
    await core.patchNamespacedConfigMap({ name, namespace, body: { data: { v: String(i) } } }, mergePatch);
    return `update ${key}`;
  }
  if (r < 0.8) {
    // Relabelling moves the object into or out of the tier=web informer's view.
    await core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { labels: { tier: pick(TIERS) } } } }, mergePatch);
    return `relabel ${key}`;
  }
  await core.deleteNamespacedConfigMap({ name, namespace });
  live.delete(key);
  return `delete ${key}`;
}

/** The informers' own requests: their LISTs ask for pages (`limit=`), the test's checks do not. */
const informerList = isList('/configmaps');
const informerWatch = isWatch('/configmaps');

function randomFault(server: ApiServer, rand: () => number): string | undefined {
  const r = rand();
  if (r < 0.05) {
    server.dropWatches();
    return 'drop watches';
  }
  if (r < 0.08) {
    server.failWatches(rand() < 0.5 ? 500 : 503);
    return 'fail watches in-stream';
  }
  if (r < 0.1) {
    server.compact();
    return 'compact';
  }
  if (r < 0.12) {
    server.failNext(1 + Math.floor(rand() * 2), 503, { match: informerList });
    return 'fail lists';
  }
  if (r < 0.14) {
    server.failNext(1, 500, { match: informerWatch });
    return 'fail a watch request';
  }
  if (r < 0.16) {
    server.delayNext(1, 10 + Math.floor(rand() * 60), { match: (m, p) => informerList(m, p) || informerWatch(m, p) });
    return 'delay a request';
  }
  if (r < 0.2) {
    cutHoldAndCompact(server, 2, informerWatch);
    return 'cut, hold, compact';
  }
  return undefined;
}

// ---- checks ---------------------------------------------------------------------------------------------------

function expectSameAsFromScratch(
  all: Collection<V1ConfigMap>,
  summaries: Collection<Summary>,
  groups: Collection<TierGroup>,
  webSummaries: Collection<Summary>,
  web: Collection<V1ConfigMap>,
  at: string,
): void {
  const objects = all.list();
  expect({ at, summaries: canonicalList(summaries.list()) }).toEqual({ at, summaries: canonicalList(objects.map(summaryOf)) });
  const wantGroups = TIERS.map((t) =>
    groupOf(
      t,
      objects.filter((o) => o.metadata?.labels?.['tier'] === t),
    ),
  );
  expect({ at, groups: canonicalList(groups.list()) }).toEqual({ at, groups: canonicalList(wantGroups) });
  expect({ at, web: canonicalList(webSummaries.list()) }).toEqual({ at, web: canonicalList(web.list().map(summaryOf)) });
  // The selected informer holds exactly the objects of the full one that its selector selects.
  expect({ at, web: canonicalList(web.list()) }).toEqual({
    at,
    web: canonicalList(objects.filter((o) => o.metadata?.labels?.['tier'] === 'web')),
  });
}

/** What the informers of every seed run so far did, summed. */
const totals = { relists: 0, watches: 0, errors: 0 };

async function run(h: Harness, seed: number, writes: number): Promise<SeedRun> {
  const rand = seededRandom(seed);
  // A short history, so that compaction is not the only way a watch expires.
  const server = await h.server({ historySize: 40, bookmarkIntervalMs: 200 });
  const kc = server.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
  const live: Live = new Map();
  for (let i = 0; i < 6; i++) await randomWrite(core, live, rand, i);

  const stop = h.stop();
  const all = newInformer<V1ConfigMap>(kc, CM, { stop, backoff: FAST, pageSize: 3, name: 'all' });
  const web = newInformer<V1ConfigMap>(kc, { ...CM, labelSelector: 'tier=web' }, { stop, backoff: FAST, pageSize: 2, name: 'web' });
  const summaries = newCollection(all, (_ctx, cm) => summaryOf(cm), { stop, name: 'summaries' });
  const tiers = newStaticCollection(
    TIERS.map((t) => ({ metadata: { name: t } })),
    { stop, name: 'tiers' },
  );
  const groups = newCollection(tiers, (ctx, t) => groupOf(t.metadata.name, fetch(ctx, all, filterLabel({ tier: t.metadata.name }))), {
    stop,
    name: 'groups',
  });
  const webSummaries = newCollection(web, (_ctx, cm) => summaryOf(cm), { stop, name: 'web summaries' });
  const teamA = newInformer<V1ConfigMap>(kc, { ...CM, namespace: 'team-a' }, { stop, backoff: FAST, pageSize: 5, name: 'team-a' });
  const replicas = [new Replica(all), new Replica(web), new Replica(teamA)];
  const derivedErrors: unknown[] = [];
  for (const c of [summaries, groups, webSummaries] as Collection<unknown>[]) c.errors$.subscribe((e) => derivedErrors.push(e));
  expect(await all.waitUntilSynced()).toBe(true);
  expect(await web.waitUntilSynced()).toBe(true);
  expect(await teamA.waitUntilSynced()).toBe(true);

  const history: string[] = [];
  let faults = 0;
  for (let i = 6; i < writes; i++) {
    const fault = randomFault(server, rand);
    if (fault !== undefined) {
      history.push(fault);
      faults++;
    }
    history.push(await randomWrite(core, live, rand, i));
    if (i % 12 === 11 || i === writes - 1) {
      const at = `seed ${seed}, after write ${i} (${history.slice(-6).join('; ')})`;
      await expectConverged(replicas[0]!, () => serverVersions(kc, 'v1', 'ConfigMap'), `all, ${at}`);
      await expectConverged(replicas[1]!, () => serverVersions(kc, 'v1', 'ConfigMap', { labelSelector: 'tier=web' }), `web, ${at}`);
      await expectConverged(replicas[2]!, () => serverVersions(kc, 'v1', 'ConfigMap', { namespace: 'team-a' }), `team-a, ${at}`);
      expect(summaries.hasSynced() && groups.hasSynced() && webSummaries.hasSynced()).toBe(true);
      expectSameAsFromScratch(all, summaries, groups, webSummaries, web, at);
    }
  }
  // Faults are reported on the informers, and nothing else is: the derived collections saw no error.
  expect(derivedErrors).toEqual([]);
  for (const r of replicas)
    for (const e of r.errors) expect(e.message).toMatch(/(list|watch) of \/api\/v1\/(namespaces\/team-a\/)?configmaps.* failed; retrying/);
  for (const informer of [all, web, teamA]) {
    const stats = informerStats(informer)!;
    totals.relists += stats.relists;
    totals.watches += stats.watches;
    totals.errors += stats.errors;
  }
  expect(history.some((x) => x.startsWith('create')) && history.some((x) => x.startsWith('delete'))).toBe(true);
  return { ops: writes, faults: faults };
}

describe('differential through the Kubernetes path', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());
  // RXKRT_KUBE_DIFF_SEEDS=N runs seeds 1..N.
  const seedCount = Number(process.env['RXKRT_KUBE_DIFF_SEEDS'] ?? 3);
  // `npm run soak`: fresh seeds (from 1000 on) until the deadline.
  const deadline = soakDeadline();
  if (deadline !== undefined) {
    it(
      'should keep informers and derived collections right for every seed until the soak deadline',
      async () => {
        const report = await soak('informer', deadline, 1000, async (seed) => {
          try {
            return await run(h, seed, 120);
          } finally {
            await h.release();
          }
        });
        expect(report.failed).toEqual([]);
      },
      soakTimeout(deadline, 120_000),
    );
    return;
  }
  for (let seed = 1; seed <= seedCount; seed++) {
    it(`should keep informers equal to the server and derived collections equal to a from-scratch computation under random faults (seed ${seed})`, async () => {
      await run(h, seed, 120);
    }, 60_000);
  }
  it('should have relisted, resumed watches and reported faults in the runs above (what the test is for)', () => {
    expect(totals.relists).toBeGreaterThan(0);
    expect(totals.watches).toBeGreaterThan(10 * seedCount);
    expect(totals.errors).toBeGreaterThan(0);
  });
});
