import { describe, it, expect, afterEach } from '@jest/globals';
import { request } from 'node:http';
import { Registry } from 'prom-client';
import { DebugHandler, newCollection, newStaticCollection } from '../../../src/index.js';
import { collectMetrics, startDebugServer, type DebugServer } from '../../../src/observe/index.js';
import { parseScrape, valueOf } from '../../helpers/prometheus.js';
import { captureLog } from '../../helpers/fixtures.js';

interface Item {
  name: string;
  n: number;
}
const byName = (i: Item): string => i.name;

/** A GET with a chosen Host header (fetch does not let a caller set it). */
function get(url: string, path: string, host?: string): Promise<{ status: number; type: string; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: host === undefined ? {} : { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startDebugServer', () => {
  const servers: DebugServer[] = [];
  const stops: AbortController[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  function stop(): AbortSignal {
    const c = new AbortController();
    stops.push(c);
    return c.signal;
  }
  async function start(opts?: Parameters<typeof startDebugServer>[0]): Promise<DebugServer> {
    const s = await startDebugServer(opts);
    servers.push(s);
    return s;
  }

  it('should serve Prometheus metrics of the live collections from a registry of its own', async () => {
    const items = newStaticCollection<Item>([{ name: 'a', n: 1 }], { name: 'Served', key: byName, stop: stop() });
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    items.updateObject({ name: 'b', n: 2 });
    const res = await get(server.url, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseScrape(res.body);
    expect(valueOf(samples, 'rxkrt_collection_objects', { collection: 'Served' })).toBe(2);
    expect(valueOf(samples, 'rxkrt_collection_events_total', { collection: 'Served', type: 'add' })).toBe(1);
  });

  it('should serve the given registry with whatever else it holds', async () => {
    const registry = new Registry();
    const off = collectMetrics(registry);
    try {
      const server = await start({ registry });
      const samples = parseScrape((await get(server.url, '/metrics')).body);
      expect(samples.some((s) => s.name === 'rxkrt_transaction_duration_seconds_count')).toBe(true);
    } finally {
      off();
    }
  });

  it('should answer /readyz 503 naming what has not synced, then 200 once it has', async () => {
    const pending = newStaticCollection<Item>([], { name: 'Pending', key: byName, synced: false, stop: stop() });
    newCollection(pending, (_ctx, i) => i, { name: 'PendingCopy', key: byName, stop: stop() });
    const server = await start();
    const before = await get(server.url, '/readyz');
    expect(before.status).toBe(503);
    expect(JSON.parse(before.body)).toEqual({ ready: false, notSynced: expect.arrayContaining(['Pending', 'PendingCopy']) as unknown });
    pending.markSynced();
    const after = await get(server.url, '/readyz');
    expect(after.status).toBe(200);
    expect(JSON.parse(after.body)).toEqual({ ready: true });
    expect((await get(server.url, '/healthz')).status).toBe(200);
  });

  it('should wait for the debugger’s collections only, when given one, and dump them in krt’s shape', async () => {
    const debug = new DebugHandler();
    newStaticCollection<Item>([], { name: 'Elsewhere', key: byName, synced: false, stop: stop() });
    newStaticCollection<Item>([{ name: 'a', n: 1 }], { name: 'Watched', key: byName, debugger: debug, stop: stop() });
    const server = await start({ debugger: debug });
    expect((await get(server.url, '/readyz')).status).toBe(200);
    const dump = JSON.parse((await get(server.url, '/debug/krtz')).body) as Array<{
      name: string;
      state: { outputs: object; synced: boolean };
    }>;
    expect(dump).toEqual([expect.objectContaining({ name: 'Watched', state: { outputs: { a: { name: 'a', n: 1 } }, synced: true } })]);
  });

  it('should serve the graph page, the graph as JSON with edges, and one collection’s detail', async () => {
    const items = newStaticCollection<Item>([{ name: 'a', n: 1 }], { name: 'GraphIn', key: byName, stop: stop() });
    const out = newCollection(
      items,
      (_ctx, i) => {
        if (i.n < 0) throw new Error(`bad n ${i.n}`);
        return i;
      },
      { name: 'GraphOut', key: byName, stop: stop() },
    );
    const log = captureLog();
    items.updateObject({ name: 'b', n: -1 });
    log.restore();
    expect(log.lines).toEqual([expect.stringContaining('bad n -1')]);
    const server = await start();
    const page = await get(server.url, '/debug/graph');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    const graph = JSON.parse((await get(server.url, '/debug/graph.json')).body) as {
      nodes: Array<{ uid: number; name: string; objects: number; errors: number }>;
      edges: Array<{ from: number; to: number }>;
    };
    const inNode = graph.nodes.find((n) => n.name === 'GraphIn')!;
    const outNode = graph.nodes.find((n) => n.name === 'GraphOut')!;
    expect(outNode).toMatchObject({ objects: 1, errors: 1 });
    expect(graph.edges).toContainEqual({ from: inNode.uid, to: outNode.uid });
    const detail = JSON.parse((await get(server.url, `/debug/collections/${outNode.uid}`)).body) as { errors: string[]; dump: unknown };
    expect(detail.errors).toEqual([expect.stringContaining('bad n -1')]);
    expect(out.getKey('a')).toEqual({ name: 'a', n: 1 });
    expect((await get(server.url, '/debug/collections/999999')).status).toBe(404);
  });

  it('should refuse a foreign Host header, other methods and unknown paths', async () => {
    const server = await start({ allowedHosts: ['controller.local:9090'] });
    const port = new URL(server.url).port;
    expect((await get(server.url, '/healthz', 'evil.example')).status).toBe(403);
    expect((await get(server.url, '/healthz', `evil.example:${port}`)).status).toBe(403);
    expect((await get(server.url, '/healthz', `localhost:${port}`)).status).toBe(200);
    expect((await get(server.url, '/healthz', 'controller.local:9090')).status).toBe(200);
    expect((await get(server.url, '/nothing')).status).toBe(404);
    const post = await fetch(`${server.url}/readyz`, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
