// Differential test of a whole controller loop: an informer of Gadgets, a status collection computing each
// Gadget's status from its spec, and a status writer patching it back, against the embedded API server.
// Seeded random writes change specs, create and delete Gadgets, and overwrite statuses behind the
// controller's back. Random faults land between them:
// - the writer's PATCHes answered 409, 5xx or late;
// - watches cut or failed in-stream;
// - history compacted while a reconnection is held.
// At every checkpoint every Gadget on the server must carry exactly the status computed from scratch from its
// spec, and no write may have failed for good. `RXKRT_STATUS_DIFF_SEEDS=N` runs seeds 1..N; CI runs two.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubernetesObject } from '@kubernetes/client-node';
import { equals, newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newStatusWriter, informerStats, type StatusWriter } from '../../src/kube/index.js';
import { seededRandom, type ApiServer } from '../../src/testing/index.js';
import { Harness, cutHoldAndCompact, installCrd, isWatch, until } from '../helpers/kube.js';
import { soak, soakDeadline, soakTimeout, type SeedRun } from '../helpers/soak.js';

/** A Gadget as this loop sees it: only its spec's size matters, and the status it should carry. */
type Gadget = KubernetesObject & { spec: { size: number }; status?: Sizing };
/** What the controller writes: the size, whether it is ready, and its size class. */
type Sizing = { size: number; ready: boolean; tier: string };

const GROUP = 'example.com';
const API_VERSION = `${GROUP}/v1`;
const FAST = { initialMs: 5, maxMs: 50 };
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The status a Gadget should carry: the controller's transform, and the from-scratch check's. */
function desired(g: Gadget): Sizing {
  const size = g.spec.size;
  return { size, ready: size > 0, tier: size >= 4 ? 'large' : size >= 2 ? 'medium' : 'small' };
}

const isStatusPatch = (m: string, p: string): boolean => m === 'PATCH' && p.includes('/gadgets/') && p.includes('/status');

class Cluster {
  private readonly gadgets = { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets' } as const;
  constructor(private readonly api: CustomObjectsApi) {}

  create(name: string, size: number): Promise<unknown> {
    return this.api.createNamespacedCustomObject({
      ...this.gadgets,
      body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name }, spec: { size } },
    });
  }
  resize(name: string, size: number): Promise<unknown> {
    return this.api.patchNamespacedCustomObject({ ...this.gadgets, name, body: { spec: { size } } }, mergePatch);
  }
  /**
   * Somebody else writes a wrong status: the controller must put its own back. Its PATCH goes to the same
   * path as the writer's, so it meets the faults injected for those, and retries them as a client would.
   */
  async tamper(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.api.patchNamespacedCustomObjectStatus(
          { ...this.gadgets, name, body: { status: { size: -1, ready: false, tier: 'tampered' } } },
          mergePatch,
        );
        return;
      } catch (e) {
        const code = (e as { code?: number }).code;
        if (attempt >= 10 || code === undefined || (code !== 409 && code < 500)) throw e;
      }
    }
  }
  delete(name: string): Promise<unknown> {
    return this.api.deleteNamespacedCustomObject({ ...this.gadgets, name });
  }
  async list(): Promise<Gadget[]> {
    return ((await this.api.listNamespacedCustomObject(this.gadgets)) as { items: Gadget[] }).items;
  }
}

async function randomWrite(cluster: Cluster, live: Set<string>, rand: () => number, i: number): Promise<string> {
  const names = [...live];
  const size = Math.floor(rand() * 6);
  const r = rand();
  if (names.length < 3 || (r < 0.25 && names.length < 20)) {
    const name = `g-${i}`;
    await cluster.create(name, size);
    live.add(name);
    return `create ${name} size ${size}`;
  }
  const name = names[Math.floor(rand() * names.length)]!;
  if (r < 0.65) {
    await cluster.resize(name, size);
    return `resize ${name} to ${size}`;
  }
  if (r < 0.85) {
    await cluster.tamper(name);
    return `tamper with ${name}'s status`;
  }
  await cluster.delete(name);
  live.delete(name);
  return `delete ${name}`;
}

function randomFault(server: ApiServer, rand: () => number): string | undefined {
  const r = rand();
  if (r < 0.06) {
    server.failNext(1 + Math.floor(rand() * 3), 409, { match: isStatusPatch });
    return 'status patches answered 409';
  }
  if (r < 0.11) {
    server.failNext(1 + Math.floor(rand() * 3), rand() < 0.5 ? 500 : 503, { match: isStatusPatch });
    return 'status patches answered 5xx';
  }
  if (r < 0.14) {
    server.delayNext(2, 10 + Math.floor(rand() * 50), { match: isStatusPatch });
    return 'status patches late';
  }
  if (r < 0.17) {
    server.dropWatches();
    return 'drop watches';
  }
  if (r < 0.19) {
    server.failWatches(503);
    return 'fail watches in-stream';
  }
  if (r < 0.22) {
    cutHoldAndCompact(server, 1, isWatch('/gadgets'));
    return 'cut, hold, compact';
  }
  return undefined;
}

/** Waits until every Gadget on the server carries the status computed from its spec; names the first that does not. */
async function expectStatusesRight(cluster: Cluster, writer: StatusWriter, at: string): Promise<void> {
  let wrong = '';
  await until(
    async () => {
      const items = await cluster.list();
      const bad = items.find((g) => !equals(g.status, desired(g)));
      wrong = bad === undefined ? '' : `${bad.metadata!.name} has ${JSON.stringify(bad.status)} for spec ${JSON.stringify(bad.spec)}`;
      return bad === undefined;
    },
    () => `${at}: ${wrong} (writer ${JSON.stringify(writer.stats)})`,
    15_000,
  );
}

/** What every seed's writer did, summed. */
const totals = { writes: 0, conflicts: 0, retries: 0, relists: 0 };

async function run(h: Harness, seed: number, writes: number): Promise<SeedRun> {
  const rand = seededRandom(seed);
  const server = await h.server({ historySize: 40, bookmarkIntervalMs: 200 });
  const kc = server.kubeConfig();
  await installCrd(kc, GROUP, 'Gadget', 'gadgets');
  const cluster = new Cluster(kc.makeApiClient(CustomObjectsApi));
  const live = new Set<string>();
  for (let i = 0; i < 5; i++) await randomWrite(cluster, live, rand, i);

  const stop = h.stop();
  const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { stop, backoff: FAST, pageSize: 4 });
  const [statuses] = newStatusCollection<Gadget, Sizing, never>(gadgets, (_ctx, g) => ({ status: desired(g) }), { name: 'Gadgets', stop });
  // Enough attempts that the random faults, which can land on one key several times, never exhaust them.
  const writer = newStatusWriter(kc, statuses, { backoff: FAST, maxAttempts: 50, concurrency: 3, qps: 1000, stop });

  const history: string[] = [];
  let faults = 0;
  for (let i = 5; i < writes; i++) {
    const fault = randomFault(server, rand);
    if (fault !== undefined) {
      history.push(fault);
      faults++;
    }
    history.push(await randomWrite(cluster, live, rand, i));
    if (i % 10 === 9 || i === writes - 1)
      await expectStatusesRight(cluster, writer, `seed ${seed}, after write ${i} (${history.slice(-6).join('; ')})`);
  }
  expect(writer.stats.failures).toBe(0);
  totals.writes += writer.stats.writes;
  totals.conflicts += writer.stats.conflicts;
  totals.retries += writer.stats.retries;
  totals.relists += informerStats(gadgets)!.relists;
  return { ops: writes, faults };
}

describe('differential of a status-writing controller loop', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());
  const seedCount = Number(process.env['RXKRT_STATUS_DIFF_SEEDS'] ?? 2);
  // `npm run soak`: fresh seeds (from 1000 on) until the deadline.
  const deadline = soakDeadline();
  if (deadline !== undefined) {
    it(
      'should leave every status right for every seed until the soak deadline',
      async () => {
        const report = await soak('status-loop', deadline, 1000, async (seed) => {
          try {
            return await run(h, seed, 80);
          } finally {
            await h.release();
          }
        });
        expect(report.failed).toEqual([]);
      },
      soakTimeout(deadline, 180_000),
    );
    return;
  }
  for (let seed = 1; seed <= seedCount; seed++) {
    it(`should leave every object with the status computed from its spec, through conflicts, 5xx, cut watches and compaction (seed ${seed})`, async () => {
      await run(h, seed, 80);
    }, 90_000);
  }
  it('should have written, met conflicts, retried and relisted in the runs above (what the test is for)', () => {
    expect(totals.writes).toBeGreaterThan(20 * seedCount);
    expect(totals.conflicts).toBeGreaterThan(0);
    // Every 409 is retried; 5xx answers add retries of their own.
    expect(totals.retries).toBeGreaterThanOrEqual(totals.conflicts);
    expect(totals.relists).toBeGreaterThan(0);
  });
});
