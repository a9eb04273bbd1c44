// startDebugServer: /metrics, /debug/krtz, /healthz, /readyz and the /debug/graph page, on loopback by default.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScrapableRegistry } from '../metrics/metricsRegistry.js';
import { liveCollections } from '../../engine/liveCollections.js';
import type { DebugHandler } from '../DebugHandler.js';
import { collectMetrics } from '../metrics/collectMetrics.js';
import { isOwnHost } from './hostCheck.js';
import { notSynced } from './readiness.js';
import { collectionDetail, graphModel } from './graphModel.js';
import { GRAPH_PAGE } from './graphPage.js';

/** Options of `startDebugServer`. */
export interface DebugServerOptions {
  /** Port to listen on; 0 or absent: a free one (read it from `url`). */
  port?: number;
  /** Address to bind. Default `127.0.0.1`: the dumps show every object, so keep them off the network. */
  host?: string;
  /** The registry `/metrics` serves. Absent: one of its own with `collectMetrics` (needs `prom-client`). */
  registry?: ScrapableRegistry;
  /** Host names (with or without port) accepted besides loopback names and `host`, e.g. for a port-forward. */
  allowedHosts?: readonly string[];
  /** Collections `/debug/krtz` dumps and `/readyz` waits for. Absent: every live collection. */
  debugger?: DebugHandler;
}

/** A running debug server. */
export interface DebugServer {
  /** `http://host:port`. */
  readonly url: string;
  /** Stops listening, ends open connections and unregisters the metrics it registered itself. */
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> | void;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown): void =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value, null, 2));

/**
 * Starts an HTTP server for operators: `GET /metrics` (Prometheus text), `/debug/krtz` (the dump in krt's
 * shape), `/healthz`, `/readyz` (503 with the collections not synced, until all are), and `/debug/graph`, a
 * page that draws the collection graph live. Requests whose Host header names another site are refused, so a
 * web page cannot read the dumps through DNS rebinding.
 * @example const debug = await startDebugServer({ port: 9090 }); console.log(`${debug.url}/debug/graph`);
 */
export async function startDebugServer(opts: DebugServerOptions = {}): Promise<DebugServer> {
  const host = opts.host ?? '127.0.0.1';
  const metrics = await metricsRegistry(opts.registry);
  const routes: Record<string, Route> = {
    '/healthz': (_req, res) => send(res, 200, 'text/plain; charset=utf-8', 'ok\n'),
    '/readyz': (_req, res) => {
      const waiting = notSynced(opts.debugger);
      json(res, waiting.length === 0 ? 200 : 503, waiting.length === 0 ? { ready: true } : { ready: false, notSynced: waiting });
    },
    '/metrics': async (_req, res) => {
      if (metrics.registry === undefined) return send(res, 501, 'text/plain; charset=utf-8', `${metrics.reason}\n`);
      send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
    },
    '/debug/krtz': (_req, res) => json(res, 200, opts.debugger?.dump() ?? liveDump()),
    '/debug/graph': (_req, res) => send(res, 200, 'text/html; charset=utf-8', GRAPH_PAGE),
    '/debug/graph.json': (_req, res) => json(res, 200, graphModel()),
  };
  let port = 0;
  const server = createServer((req, res) => {
    void answer(req, res).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { error: e instanceof Error ? e.message : String(e) });
      else res.destroy();
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isOwnHost(req.headers.host, port, host, opts.allowedHosts))
      return json(res, 403, { error: `host ${JSON.stringify(req.headers.host)} is not this server` });
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: `${req.method} is not served; use GET` });
    const path = new URL(req.url ?? '/', 'http://debug').pathname;
    const detail = /^\/debug\/collections\/(\d+)$/.exec(path);
    if (detail !== null) {
      const found = collectionDetail(Number(detail[1]));
      return found === undefined ? json(res, 404, { error: `no live collection has uid ${detail[1]}` }) : json(res, 200, found);
    }
    const route = routes[path] as Route | undefined;
    if (route === undefined)
      return json(res, 404, { error: `not found: ${path}`, paths: [...Object.keys(routes), '/debug/collections/<uid>'] });
    await route(req, res, path);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        metrics.release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Every live collection's dump, in the shape `DebugHandler.dump()` gives. */
function liveDump(): Array<{ uid: number; name: string; state: unknown }> {
  return liveCollections().map((c) => ({ uid: c.uid, name: c.name, state: c.dump() }));
}

/** The caller's registry, or one of the server's own when prom-client can be loaded. */
async function metricsRegistry(
  given: ScrapableRegistry | undefined,
): Promise<{ registry?: ScrapableRegistry; reason?: string; release: () => void }> {
  if (given !== undefined) return { registry: given, release: () => {} };
  try {
    const prom = await import('prom-client');
    const registry = new prom.Registry();
    return { registry, release: collectMetrics(registry) };
  } catch {
    return { reason: 'metrics need the optional dependency prom-client: npm install prom-client', release: () => {} };
  }
}
