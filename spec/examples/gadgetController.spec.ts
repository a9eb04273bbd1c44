import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { setLogger } from '../../src/index.js';
import { startApiServer } from '../../src/apiserver/index.js';
import { seededRandom } from '../../src/testing/index.js';
import { runGadgetDemo, converged, summary } from '../../examples/gadget-controller/main.js';
import { startGadgetController } from '../../examples/gadget-controller/controller.js';
import { expectedState, installGadgetCrd, observedState } from '../../examples/gadget-controller/fromScratch.js';
import { API_VERSION, GROUP } from '../../examples/gadget-controller/types.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const where = { group: GROUP, version: 'v1', plural: 'gadgets', namespace: 'default' };

/** Runs a test's own request, riding out the faults injected for the controller (404 and AlreadyExists are outcomes). */
async function act(fn: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fn();
      return;
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code === 404 || (code === 409 && String((e as { body?: unknown }).body).includes('AlreadyExists'))) return;
      if (attempt >= 30) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

describe('examples/gadget-controller', () => {
  beforeAll(() => setLogger({ warn: () => {}, error: () => {}, debug: () => {}, info: () => {} }));
  afterAll(() => setLogger());

  it('should run its demo to a converged end state (npm run example:gadget-controller)', async () => {
    const lines: string[] = [];
    expect(await runGadgetDemo((l) => lines.push(l))).toBe(true);
    expect(lines).toContain('tampered with ConfigMap gadget-g0');
    expect(lines.some((l) => l.startsWith('converged:'))).toBe(true);
    expect(lines.find((l) => l.startsWith('events:'))).toMatch(/events: [1-9]\d* created/);
  }, 60_000);

  for (const seed of [1, 2]) {
    it(`should reach the from-scratch end state after random changes under injected faults (seed ${seed})`, async () => {
      const random = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const server = await startApiServer();
      const stop = new AbortController();
      try {
        const kc = server.kubeConfig();
        await installGadgetCrd(kc);
        const api = kc.makeApiClient(CustomObjectsApi);
        const core = kc.makeApiClient(CoreV1Api);
        const controller = await startGadgetController(kc, stop.signal, { backoffMs: 10 });
        const names = ['a', 'b', 'c', 'd', 'e', 'f'];
        const controllerWrites = (m: string, p: string): boolean =>
          m !== 'GET' &&
          (p.includes('/configmaps') || p.includes('/status') || p.includes('/events') || (m === 'PATCH' && p.includes('/gadgets/')));
        const faults = { conflicts: 0, errors: 0, delays: 0, watchCuts: 0 };
        for (let step = 0; step < 60; step++) {
          const name = pick(names);
          const r = random();
          if (r < 0.3) {
            await act(() =>
              api.createNamespacedCustomObject({
                ...where,
                body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name }, spec: { color: pick(['red', 'blue']), size: step } },
              }),
            );
          } else if (r < 0.55) {
            await act(() =>
              api.patchNamespacedCustomObject(
                { ...where, name, body: { spec: { size: step, color: pick(['red', 'blue', 'green']) } } },
                mergePatch,
              ),
            );
          } else if (r < 0.7) {
            await act(() => api.deleteNamespacedCustomObject({ ...where, name }));
          } else if (r < 0.75) {
            await act(() => core.deleteNamespacedConfigMap({ namespace: 'default', name: `gadget-${name}` }));
          } else if (r < 0.8) {
            await act(() =>
              core.patchNamespacedConfigMap(
                { namespace: 'default', name: `gadget-${name}`, body: { data: { size: 'tampered' } } },
                mergePatch,
              ),
            );
          } else if (r < 0.86) {
            server.failNext(1 + Math.floor(random() * 3), 409, { match: controllerWrites });
            faults.conflicts++;
          } else if (r < 0.92) {
            server.failNext(1 + Math.floor(random() * 3), pick([500, 503]), { match: controllerWrites });
            faults.errors++;
          } else if (r < 0.96) {
            server.delayNext(1 + Math.floor(random() * 3), 50 + Math.floor(random() * 200), { match: controllerWrites });
            faults.delays++;
          } else {
            server.dropWatches();
            faults.watchCuts++;
          }
          if (random() < 0.5) await new Promise((res) => setTimeout(res, Math.floor(random() * 30)));
        }
        const ok = await converged(kc, 30_000);
        const { gadgets, state } = await observedState(kc);
        // On failure, the diff names what is off; on success, nothing is left to do.
        expect(state).toEqual(expectedState(gadgets));
        expect(ok).toBe(true);
        expect(gadgets.length).toBeGreaterThan(0);
        await controller.idle();
        expect(summary(controller).length).toBe(5);
        expect(faults.conflicts + faults.errors + faults.delays + faults.watchCuts).toBeGreaterThan(0);
      } finally {
        stop.abort();
        await server.close();
      }
    }, 90_000);
  }
});
