import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { newStatusCollection, setLogger } from '../../src/index.js';
import { newInformer, newStatusWriter, type Gate, type StatusWriter } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { Harness, installCrd, requestsTo, until } from '../helpers/kube.js';

interface Gadget extends KubernetesObject {
  spec: { size: number };
  status?: { size: number };
}

const GROUP = 'example.com';

/** A gate whose owned keys a test sets by hand. */
class ManualGate implements Gate {
  readonly owned = new Set<string>();
  readonly changes$ = new Subject<void>();
  owns(key: string): boolean {
    return this.owned.has(key);
  }
  set(...keys: string[]): void {
    this.owned.clear();
    for (const k of keys) this.owned.add(k);
    this.changes$.next();
  }
}

describe('newStatusWriter with a gate', () => {
  const h = new Harness();
  const writers: StatusWriter[] = [];
  afterEach(async () => {
    for (const w of writers.splice(0)) w.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  async function setup(names: string[]): Promise<{ server: ApiServer; kc: KubeConfig }> {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, GROUP, 'Gadget', 'gadgets');
    const api = kc.makeApiClient(CustomObjectsApi);
    for (const [i, name] of names.entries()) {
      await api.createNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'gadgets',
        body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name }, spec: { size: i + 1 } },
      });
    }
    return { server, kc };
  }

  // A retry waits a minute here, so a test can change ownership while it is pending.
  function gatedWriter(kc: KubeConfig, gate: Gate) {
    const stop = h.stop();
    const gadgets = newInformer<Gadget>(kc, { apiVersion: `${GROUP}/v1`, kind: 'Gadget' }, { stop });
    const [statuses] = newStatusCollection<Gadget, { size: number }, never>(gadgets, (_ctx, g) => ({ status: { size: g.spec.size } }), {
      name: 'Gadgets',
      stop,
    });
    const writer = newStatusWriter(kc, statuses, { gate, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    writers.push(writer);
    return { gadgets, writer };
  }

  const written = (server: ApiServer): string[] =>
    requestsTo(server, 'PATCH', '/status')
      .map((p) => /gadgets\/([^/]+)\/status/.exec(p)?.[1] ?? p)
      .sort();

  it('should write only the keys the gate owns', async () => {
    const { server, kc } = await setup(['a', 'b', 'c']);
    const gate = new ManualGate();
    gate.set('default/a', 'default/c');
    const { gadgets, writer } = gatedWriter(kc, gate);
    await gadgets.waitUntilSynced();
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(written(server)).toEqual(['a', 'c']);
    expect(writer.stats.notOwned).toBeGreaterThan(0);
  });

  it('should pick up a newly owned key at once, and leave a lost one unwritten', async () => {
    const { server, kc } = await setup(['a', 'b']);
    const gate = new ManualGate();
    const { gadgets, writer } = gatedWriter(kc, gate);
    await gadgets.waitUntilSynced();
    await writer.idle();
    expect(written(server)).toEqual([]);
    gate.set('default/b');
    await until(
      () => writer.stats.writes === 1,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(written(server)).toEqual(['b']);
    // Lose b, then change it: the change must not be written by this replica.
    gate.set('default/a');
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );
    const api = kc.makeApiClient(CustomObjectsApi);
    await api.patchNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      name: 'b',
      body: [{ op: 'replace', path: '/spec/size', value: 9 }],
    });
    await until(() => gadgets.getKey('default/b')?.spec.size === 9, 'b resized');
    await writer.idle();
    expect(written(server)).toEqual(['a', 'b']);
  });

  it('should drop a queued retry for a key it loses', async () => {
    const { server, kc } = await setup(['a']);
    const gate = new ManualGate();
    gate.set('default/a');
    server.failNext(1, 503, { match: (m, p) => m === 'PATCH' && p.includes('/status') });
    const { writer } = gatedWriter(kc, gate);
    await until(
      () => writer.stats.retries === 1,
      () => JSON.stringify(writer.stats),
    );
    gate.set();
    await writer.idle();
    expect(writer.stats.writes).toBe(0);
    expect(written(server)).toEqual(['a']);
  });
});
