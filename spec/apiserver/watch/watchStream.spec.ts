import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { parseIpv4Cidr } from '../../../src/apiserver/apimachinery/ipv4Range.js';
import { builtinHooks } from '../../../src/apiserver/hooks/builtinHooks.js';
import { ResourceRegistry } from '../../../src/apiserver/kinds/resourceRegistry.js';
import { createObject } from '../../../src/apiserver/objects/createObject.js';
import { parseListOptions } from '../../../src/apiserver/objects/listOptions.js';
import type { ServerState } from '../../../src/apiserver/state/serverState.js';
import { Store } from '../../../src/apiserver/storage/store.js';
import { WatchHub } from '../../../src/apiserver/watch/watchHub.js';
import { ManualClock, openWatch, waitFor } from '../helpers.js';

const BUDGET = 1024 * 1024;
const VALUE = 'x'.repeat(100 * 1024);

/** A watch request on a raw socket that never reads its answer (the kernel buffers fill, then node's). */
function stalledWatch(url: string, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

describe('WatchStream', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer({ watchBufferBytes: BUDGET });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  it('should cut the watch of a client that stops reading, keeping what waits for it within the budget', async () => {
    await core.createNamespace({ body: { metadata: { name: 'stall' } } });
    const stalled = await stalledWatch(server.url, '/api/v1/namespaces/stall/configmaps?watch=true');
    const healthy = await openWatch(server.url, '/api/v1/namespaces/stall/configmaps?watch=true');
    await waitFor(() => server.openWatches() === 2, 'both watches to open');
    let created = 0;
    // The loopback socket's kernel buffers take a few MB before node has to hold anything: write until the cut.
    while (server.watchStats().endedTooSlow === 0 && created < 500) {
      await core.createNamespacedConfigMap({ namespace: 'stall', body: { metadata: { name: `cm-${created++}` }, data: { v: VALUE } } });
      expect(server.watchStats().bufferedBytes).toBeLessThanOrEqual(2 * (BUDGET + VALUE.length + 1024));
    }
    const stats = server.watchStats();
    expect(stats.endedTooSlow).toBe(1);
    // One event may go out over the budget when nothing else waits; nothing more.
    expect(stats.peakStreamBufferedBytes).toBeLessThanOrEqual(BUDGET + VALUE.length + 1024);
    expect(server.openWatches()).toBe(1);
    // The client that keeps reading is not cut and sees every write.
    await waitFor(() => healthy.events.length === created, 'the healthy watcher to see every create');
    healthy.close();
    stalled.destroy();
    await waitFor(() => server.openWatches() === 0, 'the watches to close');
    expect(server.watchStats().bufferedBytes).toBe(0);
  });

  it('should pace a long initial list to a reading client instead of cutting it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'initial' } } });
    for (let i = 0; i < 40; i++) {
      await core.createNamespacedConfigMap({ namespace: 'initial', body: { metadata: { name: `cm-${i}` }, data: { v: VALUE } } });
    }
    const before = server.watchStats().endedTooSlow;
    // 40 × 100 KB is four times the budget: written as the socket drains, never buffered at once.
    const w = await openWatch(server.url, '/api/v1/namespaces/initial/configmaps?watch=true');
    await waitFor(() => w.events.length === 40, 'all 40 initial events');
    expect(server.watchStats().endedTooSlow).toBe(before);
    expect(server.openWatches()).toBe(1);
    w.close();
  });

  it('should arm no bookmark or timeout timer for a watch cut before they were armed', () => {
    const clock = new ManualClock();
    const registry = new ResourceRegistry();
    const state: ServerState = {
      store: new Store(),
      registry,
      clock,
      hooks: builtinHooks(),
      serviceIpRange: parseIpv4Cidr('10.96.0.0/12')!,
    };
    const namespaces = registry.byPlural('v1', 'namespaces')!;
    createObject(state, namespaces, undefined, { metadata: { name: 'a' } }, { manager: 'test' });
    const hub = new WatchHub(state, { bookmarkIntervalMs: 1_000, expired: 'status', bufferBytes: 64 });
    // A client that reads nothing: what is written stays with the socket, and the first write fills it.
    const res = Object.assign(new EventEmitter(), {
      writableLength: 0,
      writableEnded: false,
      destroyed: false,
      writeHead: () => res,
      flushHeaders: () => {},
      write: (text: string) => ((res.writableLength += Buffer.byteLength(text)), false),
      end: () => void (res.writableEnded = true),
      destroy: () => void (res.destroyed = true),
    });
    const opts = parseListOptions(namespaces, new URLSearchParams('watch=true&allowWatchBookmarks=true&timeoutSeconds=60'));
    // The initial ADDED waits with the socket, over the budget: the first BOOKMARK cuts the watch.
    hub.serve(res as unknown as ServerResponse, namespaces, undefined, undefined, opts);
    expect(hub.stats()).toMatchObject({ open: 0, endedTooSlow: 1 });
    expect(res.destroyed).toBe(true);
    // Nothing cancels a timer armed after the cut: the bookmark interval would tick for good.
    expect(clock.pending()).toBe(0);
  });

  it('should refuse a non-positive budget', async () => {
    await expect(startApiServer({ watchBufferBytes: 0 })).rejects.toThrow('watchBufferBytes must be positive, got 0');
  });
});
