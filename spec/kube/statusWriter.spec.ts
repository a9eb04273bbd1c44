import { describe, it, expect } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { DebugHandler, UsageError, newStaticCollection, newStatusCollection, type Collection } from '../../src/index.js';
import { newStatusWriter } from '../../src/kube/index.js';
import { pause, until } from '../helpers/kube.js';
import {
  API_VERSION,
  GROUP,
  desired,
  isStatusPatch,
  mergePatch,
  statusWriterRig,
  type Gadget,
  type GadgetStatus,
} from './statusWriter.fixtures.js';

describe('newStatusWriter', () => {
  const { writers, setup, create, resize, read, statusesOf, pipeline, patches } = statusWriterRig();

  it('should write only statuses that differ from what the object carries', async () => {
    const { server, kc, api } = await setup({ g1: 3 });
    // g2 already carries exactly the status it should have.
    await create(api, 'g2', 4);
    await api.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g2', body: { status: { size: 4, ready: true } } },
      mergePatch,
    );
    const patchesBefore = patches(server).length;
    const { writer } = pipeline(kc);
    // g2 skipped at once; g1 written, then skipped when its new status comes back through the informer.
    await until(
      () => writer.stats.writes === 1 && writer.stats.skipped >= 2,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(patches(server).length - patchesBefore).toBe(1);
    expect(patches(server, 'g1')).toHaveLength(1);
    expect((await read(api, 'g1')).status).toEqual({ size: 3, ready: true });
    expect(writer.stats).toMatchObject({ writes: 1, conflicts: 0, retries: 0, failures: 0, notFound: 0, inFlight: 0, queued: 0 });

    // A spec change is written once; an unrelated metadata change writes nothing.
    await resize(api, 'g2', 0);
    await until(() => writer.stats.writes === 2, 'g2 rewritten');
    await api.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: 'default', plural: 'gadgets', name: 'g1', body: { metadata: { labels: { x: 'y' } } } },
      mergePatch,
    );
    const skipped = writer.stats.skipped;
    await until(() => writer.stats.skipped > skipped, 'the relabel to be seen and skipped');
    await writer.idle();
    expect((await read(api, 'g2')).status).toEqual({ size: 0, ready: false });
    expect(patches(server).length - patchesBefore).toBe(2);
  });

  it('should land the status with a merge patch guarded by the resourceVersion', async () => {
    const { server, kc, api } = await setup({ g1: 2, g2: 5 });
    const { writer } = pipeline(kc, { strategy: 'merge' });
    await until(() => writer.stats.writes === 2, 'two writes');
    expect((await read(api, 'g1')).status).toEqual({ size: 2, ready: true });
    expect((await read(api, 'g2')).status).toEqual({ size: 5, ready: true });
    // Merge patches carry no field manager; the server names the Update after the client.
    expect(patches(server).every((p) => !p.includes('fieldManager'))).toBe(true);
    const fields = (await read(api, 'g1')).metadata?.managedFields ?? [];
    expect(fields.some((f) => f.operation === 'Update' && f.subresource === 'status')).toBe(true);
  });

  it('should land the status with server-side apply under its field manager, without force', async () => {
    const { server, kc, api } = await setup({ g1: 2, g2: 5 });
    const { writer } = pipeline(kc, { strategy: 'apply', fieldManager: 'gadget-controller' });
    await until(() => writer.stats.writes === 2, 'two writes');
    expect((await read(api, 'g1')).status).toEqual({ size: 2, ready: true });
    expect((await read(api, 'g2')).status).toEqual({ size: 5, ready: true });
    expect(patches(server).every((p) => p.includes('fieldManager=gadget-controller') && !p.includes('force'))).toBe(true);
    const fields = (await read(api, 'g1')).metadata?.managedFields ?? [];
    expect(fields).toContainEqual(expect.objectContaining({ manager: 'gadget-controller', operation: 'Apply', subresource: 'status' }));
    // Removing a field from the desired status removes it from the object (the manager owned it).
    await resize(api, 'g1', 0);
    await until(async () => (await read(api, 'g1')).status?.ready === false, 'g1 not ready');
  });

  it('should count a 404 as notFound, without retrying, when its view of the object is stale', async () => {
    const { server, kc } = await setup({});
    // The status collection still holds a gadget the server no longer has.
    const ghosts = newStaticCollection<Gadget>([
      {
        apiVersion: API_VERSION,
        kind: 'Gadget',
        metadata: { name: 'ghost', namespace: 'default', resourceVersion: '1' },
        spec: { size: 1 },
      },
    ]);
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(ghosts, (_ctx, g) => ({ status: desired(g) }));
    for (const strategy of ['merge', 'apply'] as const) {
      const writer = newStatusWriter(kc, statuses, { strategy, fieldManager: 'x' });
      writers.push(writer);
      await until(
        () => writer.stats.notFound === 1,
        () => JSON.stringify(writer.stats),
      );
      await writer.idle();
      expect(writer.stats).toMatchObject({ writes: 0, retries: 0, failures: 0, notFound: 1 });
      writer.stop();
    }
    expect(patches(server, 'ghost')).toHaveLength(2);
  });

  it('should resolve idle() once nothing is queued, in flight or waiting for a retry', async () => {
    const { server, kc } = await setup({ g1: 1, g2: 2, g3: 3 });
    server.failNext(1, 503, { match: isStatusPatch });
    server.delayNext(3, 100, { match: isStatusPatch });
    const { statuses, writer } = pipeline(kc, { backoff: { initialMs: 150 } });
    await statuses.waitUntilSynced();
    await until(() => writer.stats.inFlight > 0 || writer.stats.writes > 0, 'the writer to start');
    await writer.idle();
    // idle() resolved: every write done (the failed one retried), nothing pending.
    expect(writer.stats).toMatchObject({ writes: 3, retries: 1, inFlight: 0, queued: 0 });
    expect(patches(server)).toHaveLength(4);
  });

  it('should stop: nothing new starts, the write in flight finishes, and a stop signal works the same', async () => {
    const { server, kc } = await setup({ g1: 1, g2: 2, g3: 3 });
    server.delayNext(1, 300, { match: isStatusPatch });
    const { writer } = pipeline(kc, { concurrency: 1 });
    await until(() => patches(server).length === 1, 'the first PATCH');
    writer.stop();
    expect(writer.stats.queued).toBe(0);
    await writer.idle();
    expect(writer.stats.writes).toBe(1);
    expect(patches(server)).toHaveLength(1);

    // With a stop signal: aborted later, or already aborted at construction.
    const { statuses } = statusesOf(kc);
    await statuses.waitUntilSynced();
    // Its informer shares the running one's LIST and WATCH: g1's written status arrives as a watch event.
    await until(() => statuses.list().filter((s) => s.obj.status === undefined).length === 2, 'g1 written, seen by the shared informer');
    const stop = new AbortController();
    stop.abort();
    const stillborn = newStatusWriter(kc, statuses, { stop: stop.signal });
    writers.push(stillborn);
    await pause(100);
    expect(patches(server)).toHaveLength(1);
    expect(stillborn.stats).toMatchObject({ writes: 0, inFlight: 0, queued: 0 });

    const later = new AbortController();
    server.delayNext(1, 300, { match: isStatusPatch });
    const third = newStatusWriter(kc, statuses, { stop: later.signal, concurrency: 1 });
    writers.push(third);
    await until(() => patches(server).length === 2, 'its first PATCH');
    later.abort();
    await third.idle();
    await pause(50);
    expect(patches(server)).toHaveLength(2);
    expect(third.stats).toMatchObject({ writes: 1, queued: 0 });
  });

  it('should refuse options under which it could never write', () => {
    const [statuses] = newStatusCollection<Gadget, GadgetStatus, never>(newStaticCollection<Gadget>([]), (_ctx, g) => ({
      status: desired(g),
    }));
    const kc = {} as KubeConfig;
    expect(() => newStatusWriter(kc, statuses, { concurrency: 0 })).toThrow(UsageError);
    expect(() => newStatusWriter(kc, statuses, { concurrency: 1.5 })).toThrow(/concurrency must be a positive integer/);
    expect(() => newStatusWriter(kc, statuses, { qps: 0 })).toThrow(/qps must be a positive number/);
    expect(() => newStatusWriter(kc, statuses, { maxAttempts: -1 })).toThrow(UsageError);
    expect(statuses.list()).toEqual([]);
  });

  it('should show its counters and queue in a debug dump while running, and leave the dump when stopped', async () => {
    const { kc } = await setup({ g1: 1 });
    const debug = new DebugHandler();
    const { statuses, writer } = pipeline(kc, { debugger: debug, name: 'gadget-status' });
    await until(() => writer.stats.writes === 1, 'a write');
    await writer.idle();
    const entry = debug.dump().find((d) => d.name === 'gadget-status');
    expect(entry?.state).toMatchObject({
      inputCollection: (statuses as Collection<unknown>).name,
      synced: true,
      outputs: { stats: { writes: 1, inFlight: 0, queued: 0 }, queued: [], inFlight: [] },
    });
    expect(writer.name).toBe('gadget-status');
    writer.stop();
    expect(debug.dump().find((d) => d.name === 'gadget-status')).toBeUndefined();
  });
});
