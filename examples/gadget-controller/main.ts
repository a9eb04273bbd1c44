// `npm run example:gadget-controller`: the gadget controller on the embedded API server, through a few changes.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { startApiServer } from 'rxkrt/apiserver';
import { startGadgetController, type GadgetController } from './controller.js';
import { expectedState, installGadgetCrd, observedState } from './fromScratch.js';
import { API_VERSION, GROUP } from './types.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const where = { group: GROUP, version: 'v1', plural: 'gadgets' };

/** Polls until the server's state is what a from-scratch computation expects; false at the deadline. */
export async function converged(kc: KubeConfig, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const { gadgets, state } = await observedState(kc);
    const settled = gadgets.every((g) => g.metadata?.deletionTimestamp === undefined);
    if (settled && isDeepStrictEqual(state, expectedState(gadgets))) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One line of counters per sink. */
export function summary(c: GadgetController): string[] {
  const r = c.reconciler.stats();
  const f = c.finalizer.stats();
  const w = c.statusWriter.stats;
  const e = c.recorder.stats();
  return [
    `reconciler: ${r.reconciles} reconciles, ${r.failed} failed and retried (${c.errors.length} errors on errors$ in all)`,
    `finalizer: ${f.reconciles} runs, ${f.failed} failed`,
    `orphan collector: ${c.collector.stats().reconciles} runs`,
    `status writer: ${w.writes} writes, ${w.skipped} skipped, ${w.conflicts} conflicts`,
    `events: ${e.created} created, ${e.seriesUpdates} series updates, ${e.dropped} dropped`,
  ];
}

/** Creates, edits and deletes gadgets (and tampers with a ConfigMap), then checks the end state. */
export async function runGadgetDemo(print: (line: string) => void = console.log): Promise<boolean> {
  const server = await startApiServer();
  const stop = new AbortController();
  try {
    const kc = server.kubeConfig();
    await installGadgetCrd(kc);
    const api = kc.makeApiClient(CustomObjectsApi);
    const controller = await startGadgetController(kc, stop.signal);
    const colors = ['red', 'green', 'blue', 'amber'];
    for (const [i, color] of colors.entries()) {
      await api.createNamespacedCustomObject({
        ...where,
        namespace: 'default',
        body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name: `g${i}` }, spec: { color, size: i + 1 } },
      });
    }
    print(`created ${colors.length} gadgets`);
    await api.patchNamespacedCustomObject({ ...where, namespace: 'default', name: 'g1', body: { spec: { size: 42 } } }, mergePatch);
    await api.deleteNamespacedCustomObject({ ...where, namespace: 'default', name: 'g3' });
    print('resized g1, deleted g3');
    if (!(await converged(kc, 20_000))) throw new Error('the controller did not converge');
    // Somebody edits an owned ConfigMap by hand: the controller puts it back.
    await kc
      .makeApiClient(CoreV1Api)
      .patchNamespacedConfigMap({ namespace: 'default', name: 'gadget-g0', body: { data: { color: 'pink' } } }, mergePatch);
    print('tampered with ConfigMap gadget-g0');
    const ok = await converged(kc, 20_000);
    await controller.idle();
    print(ok ? 'converged: every gadget has its ConfigMap, a Ready condition and the finalizer; g3 is cleaned up' : 'NOT converged');
    for (const line of summary(controller)) print(line);
    return ok;
  } finally {
    stop.abort();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runGadgetDemo().then(
    (ok) => process.exit(ok ? 0 : 1),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
