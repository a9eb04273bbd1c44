// Shared test helpers for the API server specs: a server per suite, raw HTTP, raw watch streams, polling, error checks.
import { afterAll, beforeAll } from '@jest/globals';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../src/apiserver/index.js';

/** A `Status` body as the server sends it. */
export interface StatusBody {
  kind: string;
  status: string;
  reason: string;
  code: number;
  message: string;
  details?: { causes?: Array<{ field?: string; message: string }> };
}

/** Awaits `p`, expects a client-node ApiException with `code`, and returns its Status body. */
export async function expectApiError(p: Promise<unknown>, code: number, reason?: string): Promise<StatusBody> {
  let error: unknown;
  try {
    await p;
  } catch (e) {
    error = e;
  }
  if (!(error instanceof ApiException)) throw new Error(`expected an ApiException ${code}, got ${String(error)}`);
  const body = (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as StatusBody;
  if (error.code !== code) throw new Error(`expected HTTP ${code}, got ${error.code}: ${JSON.stringify(body)}`);
  if (body.kind !== 'Status' || body.code !== code || body.status !== 'Failure')
    throw new Error(`not a failure Status: ${JSON.stringify(body)}`);
  if (reason !== undefined && body.reason !== reason) throw new Error(`expected reason ${reason}, got ${body.reason}`);
  return body;
}

/**
 * One plain HTTP request; the body is sent as JSON unless it is a string. `json` is the decoded answer (its
 * text when that is not JSON), typed as the caller expects it: `Body`, `unknown` unless given.
 */
export async function request<Body = unknown>(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; contentType?: string } = {},
): Promise<{ status: number; json: Body; headers: Headers }> {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const res = await fetch(base + path, {
    method,
    body,
    headers: body === undefined ? {} : { 'Content-Type': opts.contentType ?? 'application/json' },
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, json: json as Body, headers: res.headers };
}

/** A watch stream read line by line; `O` is what the caller expects its events' objects to be. */
export interface RawWatch<O = unknown> {
  status: number;
  /** Events received so far, in order. */
  events: Array<{ type: string; object: O }>;
  /** Resolves when the server ends the stream (or it is aborted). */
  ended: Promise<void>;
  /** Aborts the request. */
  close(): void;
}

/** Opens `GET path` (which should carry `watch=true`) and collects its events. */
export async function openWatch<O = unknown>(base: string, path: string): Promise<RawWatch<O>> {
  const controller = new AbortController();
  const res = await fetch(base + path, { signal: controller.signal });
  const events: Array<{ type: string; object: O }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      }
    } catch {
      // aborted
    }
  })();
  return { status: res.status, events, ended, close: () => controller.abort() };
}

/** Polls `condition` every 10 ms until it holds, failing with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A minimal namespaced CRD for kind `Widget` in `example.com`, with a status subresource. */
export function widgetCrd(opts: { scope?: 'Namespaced' | 'Cluster'; versions?: string[]; status?: boolean } = {}) {
  const versions = opts.versions ?? ['v1'];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: opts.scope ?? 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        ...(opts.status === false ? {} : { subresources: { status: {} } }),
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

/** A virtual clock for the server: timers fire only when the test calls {@link ManualClock.advance}. */
export class ManualClock {
  private time = Date.parse('2026-01-01T00:00:00Z');
  private timers: Array<{ at: number; fn: () => void; every?: number; live: boolean }> = [];

  now(): Date {
    return new Date(this.time);
  }

  setTimeout(fn: () => void, ms: number): { cancel(): void } {
    return this.add(fn, ms);
  }

  setInterval(fn: () => void, ms: number): { cancel(): void } {
    return this.add(fn, ms, ms);
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.live && t.at <= end)
        .sort((a, b) => a.at - b.at)
        .at(0);
      if (!due) break;
      this.time = due.at;
      if (due.every) due.at += due.every;
      else due.live = false;
      due.fn();
    }
    this.time = end;
    this.timers = this.timers.filter((t) => t.live);
  }

  /** How many timers are armed (to check nothing leaks). */
  pending(): number {
    return this.timers.filter((t) => t.live).length;
  }

  private add(fn: () => void, ms: number, every?: number): { cancel(): void } {
    const timer = { at: this.time + ms, fn, every, live: true };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.live = false;
      },
    };
  }
}

/**
 * Sends `text` as-is over a fresh TCP connection to `url`'s port and resolves with everything the server
 * answered before closing (or before `idleMs` of silence), for request targets no HTTP client would send.
 */
export async function rawExchange(url: string, text: string, idleMs = 500): Promise<string> {
  const { connect } = await import('node:net');
  const port = Number(new URL(url).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    const done = (): void => {
      socket.destroy();
      resolve(answer);
    };
    let idle = setTimeout(done, idleMs);
    socket.on('data', (d) => {
      answer += d.toString('utf8');
      clearTimeout(idle);
      idle = setTimeout(done, idleMs);
    });
    socket.on('end', () => {
      clearTimeout(idle);
      done();
    });
    socket.on('error', (e) => {
      clearTimeout(idle);
      reject(e);
    });
  });
}

/** The status code and JSON body of a raw HTTP/1.1 answer (the first one, not chunked). */
export function parseRawAnswer<Body = StatusBody>(answer: string): { status: number; body: Body } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? NaN);
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: (text ? JSON.parse(text) : undefined) as Body };
}

/**
 * One request through node:http(s), which, unlike fetch, lets a test set `Host` and `Origin` and omit the
 * Content-Type; `ca` is the certificate to trust for an https URL.
 */
export async function nodeRequest<Body = StatusBody>(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {},
): Promise<{ status: number; json: Body }> {
  const { request: httpRequest } = await import('node:http');
  const { request: httpsRequest } = await import('node:https');
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method: opts.method ?? 'GET', headers: opts.headers, ca: opts.ca }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON: keep the text */
        }
        resolve({ status: res.statusCode ?? 0, json: json as Body });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** What `serverForSuite` hands a suite: read its fields inside tests and hooks, once `beforeAll` has run. */
export interface SuiteServer {
  readonly server: ApiServer;
  readonly core: CoreV1Api;
}

/** An embedded API server started before the suite's tests and closed after them, with a core/v1 client. */
export function serverForSuite(): SuiteServer {
  const suite = {} as { server: ApiServer; core: CoreV1Api };
  beforeAll(async () => {
    suite.server = await startApiServer();
    suite.core = suite.server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => suite.server.close());
  return suite;
}
