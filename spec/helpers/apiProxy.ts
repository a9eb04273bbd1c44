// An HTTP proxy in front of the embedded API server that misbehaves on demand: it answers for the server,
// stalls, rewrites LIST bodies and watch events, so that rxkrt's real client-node paths meet a bad server.
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFor } from './kube.js';

/** One request the proxy received. */
export interface ProxiedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly url: URL;
  readonly isWatch: boolean;
  /** The client went away before the answer was complete (it aborted the request). */
  clientAborted: boolean;
}

/** A decoded line of a watch stream. */
export interface WatchLine {
  type: string;
  object: unknown;
}

/** What the proxy does with a request a rule matched. */
export type ProxyAction =
  /** Forward as is. */
  | { readonly kind: 'pass' }
  /** Never answer (until the client gives up or the proxy closes). */
  | { readonly kind: 'stall' }
  /** Answer for the server. A body that is not a string is sent as JSON. */
  | { readonly kind: 'answer'; readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  /** Forward, then replace the (JSON) answer with what `rewrite` returns. */
  | { readonly kind: 'rewriteBody'; readonly rewrite: (body: unknown) => unknown }
  /** Forward a watch, replacing each event of the stream with the lines `rewrite` returns. */
  | { readonly kind: 'rewriteEvents'; readonly rewrite: (line: WatchLine) => unknown[] }
  /** Answer a watch with these lines, then keep the stream open. */
  | { readonly kind: 'stream'; readonly lines: readonly unknown[] };

interface Rule {
  readonly match: (r: ProxiedRequest) => boolean;
  readonly action: ProxyAction | ((r: ProxiedRequest) => ProxyAction);
  times: number;
}

/** A running proxy. */
export interface ApiProxy {
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: ProxiedRequest[];
  /** A KubeConfig pointing at the proxy. */
  kubeConfig(): KubeConfig;
  /** Applies `action` to the next `times` requests `match` accepts (default: all of them); newest rule first. Returns a remover. */
  on(match: (r: ProxiedRequest) => boolean, action: ProxyAction | ((r: ProxiedRequest) => ProxyAction), times?: number): () => void;
  close(): Promise<void>;
}

/** Matches LIST requests (not watches) whose path includes `fragment`. */
export const listOf =
  (fragment = '') =>
  (r: ProxiedRequest): boolean =>
    r.method === 'GET' && !r.isWatch && r.url.searchParams.has('limit') && r.path.includes(fragment);

/** Matches watch requests whose path includes `fragment`. */
export const watchOf =
  (fragment = '') =>
  (r: ProxiedRequest): boolean =>
    r.method === 'GET' && r.isWatch && r.path.includes(fragment);

/** Starts a proxy to `target` (an `http://127.0.0.1:PORT` URL) on a free loopback port. */
export async function startApiProxy(target: string): Promise<ApiProxy> {
  const upstream = new URL(target);
  const rules: Rule[] = [];
  const requests: ProxiedRequest[] = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const r: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      url,
      isWatch: url.searchParams.get('watch') === 'true',
      clientAborted: false,
    };
    requests.push(r);
    res.on('close', () => {
      if (!res.writableFinished) r.clientAborted = true;
    });
    const rule = rules.find((x) => x.times > 0 && x.match(r));
    if (rule !== undefined) rule.times--;
    const action = rule === undefined ? undefined : typeof rule.action === 'function' ? rule.action(r) : rule.action;
    handle(req, res, upstream, action?.kind === 'pass' ? undefined : action);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    kubeConfig: () => kubeConfigFor(url),
    on(match, action, times = Number.POSITIVE_INFINITY) {
      const rule: Rule = { match, action, times };
      rules.unshift(rule);
      return () => {
        rule.times = 0;
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function handle(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: URL,
  action: Exclude<ProxyAction, { kind: 'pass' }> | undefined,
): void {
  if (action?.kind === 'stall') return;
  if (action?.kind === 'answer') {
    const body = typeof action.body === 'string' ? action.body : action.body === undefined ? '' : JSON.stringify(action.body);
    res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
    res.end(body);
    return;
  }
  if (action?.kind === 'stream') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    for (const line of action.lines) res.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const out = forward(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
    (up) => {
      if (action === undefined || up.statusCode !== 200) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        // A watch may say nothing for a while: the client must see the answer's head at once, as from the server.
        res.flushHeaders();
        up.pipe(res);
        return;
      }
      const headers = { ...up.headers };
      delete headers['content-length'];
      delete headers['transfer-encoding'];
      if (action.kind === 'rewriteBody') {
        let text = '';
        up.setEncoding('utf8');
        up.on('data', (c: string) => (text += c));
        up.on('end', () => {
          res.writeHead(200, headers);
          res.end(JSON.stringify(action.rewrite(JSON.parse(text) as unknown)));
        });
        return;
      }
      res.writeHead(200, headers);
      res.flushHeaders();
      let partial = '';
      up.setEncoding('utf8');
      up.on('data', (c: string) => {
        const lines = (partial + c).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line.trim() === '') continue;
          for (const l of action.rewrite(JSON.parse(line) as WatchLine)) res.write(`${JSON.stringify(l)}\n`);
        }
      });
      up.on('end', () => res.end());
    },
  );
  out.on('error', () => res.destroy());
  res.on('close', () => out.destroy());
  req.pipe(out);
}
