// The top of every request: log it, apply injected faults, route it, and answer errors as Status objects.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { reasonForCode, StatusError, unknownPath } from '../apimachinery/statusError.js';
import { apiGroupDoc, apiGroupListDoc, apiResourceListDoc, apiVersionsDoc, versionDoc } from '../kinds/discovery.js';
import { openApiGroupVersionDoc, openApiIndexDoc } from '../kinds/openapi.js';
import { OPENAPI_V2_PROTOBUF, openApiV2Doc, openApiV2Protobuf } from '../kinds/openapiV2.js';
import type { ServerState } from '../state/serverState.js';
import type { WatchHub } from '../watch/watchHub.js';
import type { Faults } from './faults.js';
import type { Partitions } from './partitions.js';
import { sendError, sendJson } from '../apimachinery/jsonBodies.js';
import { handleResource } from './resourceHandler.js';
import { checkAccess, type AccessPolicy } from './accessControl.js';
import { parseRequestTarget, type RequestTarget } from './requestTarget.js';
import { resolveRoute } from './router.js';

/** One entry of the request log. `path` includes the query string. */
export interface RequestRecord {
  /** The HTTP method (`GET`, `PATCH`, …). */
  readonly method: string;
  /** The request path, query string included. */
  readonly path: string;
  /**
   * Who sent it: the `Impersonate-User` header, which `kubeConfig({ as })` sets (the server has no RBAC and
   * uses it only to tell clients apart); undefined for an anonymous client.
   */
  readonly client?: string;
  /** When it arrived, in milliseconds on the server's clock. */
  readonly at?: number;
  /**
   * The HTTP status it was answered with, once answered (undefined while in flight, and for a request whose
   * connection was dropped without an answer).
   */
  readonly status?: number;
}

/** What the request handler needs beyond the server state. */
export interface ServerContext {
  readonly state: ServerState;
  readonly hub: WatchHub;
  readonly faults: Faults;
  /** Clients cut off from the server. */
  readonly partitions: Partitions;
  /** Bounded request log, oldest first. */
  readonly log: RequestRecord[];
  readonly logLimit: number;
  /** `127.0.0.1:PORT`, advertised by `/api`. */
  serverAddress: string;
  /** Which Host, Origin and credentials are accepted; its port is set once the server listens. */
  readonly access: AccessPolicy;
  /** Resolves after `ms` on the server's clock; cancelled on close. */
  sleep(ms: number): Promise<void>;
}

/**
 * Handles one HTTP request end to end; never rejects (every failure becomes a `Status` response, or a cut
 * socket when the headers already went out).
 */
export async function handleRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const client = clientOf(req);
  let target: RequestTarget;
  try {
    checkAccess(req.headers, ctx.access);
    target = parseRequestTarget(req.url);
  } catch (e) {
    // Logged as sent: a refused request is worth seeing in the log too.
    logRequest(ctx, method, req.url ?? '', client, res);
    return sendError(res, e);
  }
  const url = target.url;
  const path = url.pathname + url.search;
  logRequest(ctx, method, path, client, res);
  ctx.partitions.track(client, res);
  const partition = ctx.partitions.modeOf(client);
  if (partition === 'reset') return void res.destroy();
  // Left open: the partition's heal (or the client giving up) ends it.
  if (partition === 'hang') return;
  try {
    if (partition === 'fail') {
      throw new StatusError(503, reasonForCode(503), `injected partition: client ${client} is cut off (${method} ${url.pathname})`);
    }
    const fault = ctx.faults.take(method, path);
    if (fault.delayMs > 0) {
      await ctx.sleep(fault.delayMs);
      // The server may have closed (and cut this connection) while we slept.
      if (res.destroyed) return;
    }
    if (fault.failStatus !== undefined) {
      const code = fault.failStatus;
      // 429 and 503 tell clients when to come back, as real servers do.
      const retry = code === 429 || code === 503 ? { retryAfterSeconds: 1 } : undefined;
      throw new StatusError(code, reasonForCode(code), `injected failure (HTTP ${code}) for ${method} ${url.pathname}`, retry);
    }
    await route(ctx, req, res, method, target);
  } catch (e) {
    sendError(res, e);
  }
}

function logRequest(ctx: ServerContext, method: string, path: string, client: string | undefined, res: ServerResponse): void {
  const record: { -readonly [K in keyof RequestRecord]: RequestRecord[K] } = { method, path, client, at: ctx.state.clock.now().getTime() };
  ctx.log.push(record);
  if (ctx.log.length > ctx.logLimit) ctx.log.splice(0, ctx.log.length - ctx.logLimit);
  // Set once the whole answer went out (a watch: when its stream ends); a dropped connection never sets it.
  res.once('finish', () => (record.status = res.statusCode));
}

function clientOf(req: IncomingMessage): string | undefined {
  const h = req.headers['impersonate-user'];
  const name = Array.isArray(h) ? h[0] : h;
  return name === undefined || name === '' ? undefined : name;
}

async function route(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, method: string, target: RequestTarget): Promise<void> {
  const url = target.url;
  const r = resolveRoute(target.segments, ctx.state.registry);
  if (r.type === 'resource') return handleResource(ctx.state, ctx.hub, req, res, r, url);
  if (method !== 'GET' && method !== 'HEAD') throw new StatusError(405, 'MethodNotAllowed', `${method} is not allowed on ${url.pathname}`);
  const registry = ctx.state.registry;
  switch (r.type) {
    case 'root':
      return sendJson(res, 200, {
        paths: ['/api', '/api/v1', '/apis', ...[...registry.groups().keys()].map((g) => `/apis/${g}`), '/healthz', '/version'],
      });
    case 'version':
      return sendJson(res, 200, versionDoc());
    case 'health': {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    case 'apiVersions':
      return sendJson(res, 200, apiVersionsDoc(ctx.serverAddress));
    case 'groupList':
      return sendJson(res, 200, apiGroupListDoc(registry));
    case 'group':
      return sendJson(res, 200, apiGroupDoc(registry, r.group) ?? notFound());
    case 'resourceList':
      return sendJson(res, 200, apiResourceListDoc(registry, r.groupVersion) ?? notFound());
    case 'openApiIndex':
      return sendJson(res, 200, openApiIndexDoc(registry));
    case 'openApiGroupVersion':
      return sendJson(res, 200, openApiGroupVersionDoc(registry, r.groupVersion) ?? notFound());
    case 'openApiV2': {
      if (!(req.headers.accept ?? '').includes(OPENAPI_V2_PROTOBUF)) return sendJson(res, 200, openApiV2Doc());
      const body = openApiV2Protobuf();
      // Go's media type parser refuses the `@` of the asked-for type; a real server answers octet-stream.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
      res.end(body);
      return;
    }
  }
}

function notFound(): never {
  throw unknownPath();
}
