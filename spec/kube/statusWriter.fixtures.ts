// The rig shared by the newStatusWriter specs: a server with the Gadget CRD, an informer → status collection →
// writer pipeline (timers on a virtual clock come from spec/helpers/manualScheduler.ts).
import { afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newStatusWriter, type StatusWriter, type StatusWriterOptions } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Harness, installCrd, requestsTo } from '../helpers/kube.js';

export interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: GadgetStatus;
}
export interface GadgetStatus {
  size: number;
  ready: boolean;
  note?: string;
}

export const GROUP = 'example.com';
export const API_VERSION = `${GROUP}/v1`;
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
export const desired = (g: Gadget): GadgetStatus => ({ size: g.spec.size, ready: g.spec.size > 0 });
export const isStatusPatch = (m: string, p: string): boolean => m === 'PATCH' && p.includes('/gadgets/') && p.includes('/status');

/**
 * Called in a describe block: a harness and the writers started there, released and stopped after each test,
 * with the helpers that set up a server and a writer pipeline on them.
 */
export function statusWriterRig() {
  const h = new Harness();
  const writers: StatusWriter[] = [];
  afterEach(async () => {
    for (const w of writers.splice(0)) w.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  /** A server with the Gadget CRD and the given gadgets (name → size). */
  async function setup(sizes: Record<string, number>): Promise<{ server: ApiServer; kc: KubeConfig; api: CustomObjectsApi }> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const [name, size] of Object.entries(sizes)) await create(api, name, size);
    return { server, kc, api };
  }

  function create(api: CustomObjectsApi, name: string, size: number): Promise<unknown> {
    return api.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: API_VERSION, kind: 'Gadget', metadata: { name }, spec: { size } },
    });
  }

  function resize(api: CustomObjectsApi, name: string, size: number): Promise<unknown> {
    return api.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name, body: { spec: { size } } },
      mergePatch,
    );
  }

  async function read(api: CustomObjectsApi, name: string): Promise<Gadget> {
    return (await api.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name })) as Gadget;
  }

  /** Gadgets informer → status collection. */
  function statusesOf(kc: KubeConfig) {
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: API_VERSION, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(gadgets, (_ctx, g) => ({ status: desired(g) }), {
      name: 'Gadgets',
      stop,
    });
    return { gadgets, statuses };
  }

  /** Gadgets informer → status collection → writer. */
  function pipeline(kc: KubeConfig, opts: StatusWriterOptions = {}) {
    const { gadgets, statuses } = statusesOf(kc);
    const writer = newStatusWriter(kc, statuses, opts);
    writers.push(writer);
    return { gadgets, statuses, writer };
  }

  const patches = (server: ApiServer, name?: string): string[] =>
    requestsTo(server, 'PATCH', name === undefined ? '/status' : `/gadgets/${name}/status`);

  return { h, writers, setup, create, resize, read, statusesOf, pipeline, patches };
}
