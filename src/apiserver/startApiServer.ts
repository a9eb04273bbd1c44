// Starts the embedded API server on 127.0.0.1 and hands back its URL, client configs and fault hooks.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { sendError } from './apimachinery/jsonBodies.js';
import { reasonForCode, StatusError } from './apimachinery/statusError.js';
import { realClock, type Clock, type TimerHandle } from './apimachinery/clock.js';
import { parseIpv4Cidr } from './apimachinery/ipv4Range.js';
import { checkFailureStatus, Faults, type RequestMatcher } from './http/faults.js';
import { Partitions, type PartitionMode } from './http/partitions.js';
import { kubeConfigFor, kubeconfigYaml, type ClientCredentials } from './http/kubeconfig.js';
import { selfSignedCert } from './http/selfSignedCert.js';
import { answerClientError, refuseConnect } from './http/rawSocketAnswers.js';
import { handleRequest, type RequestRecord, type ServerContext } from './http/requestHandler.js';
import { builtinHooks } from './hooks/builtinHooks.js';
import { ResourceRegistry } from './kinds/resourceRegistry.js';
import { createObject } from './objects/createObject.js';
import type { ServerState } from './state/serverState.js';
import { Store } from './storage/store.js';
import { WatchHub, type ExpiredWatchMode, type WatchStats } from './watch/watchHub.js';

/** Options of {@link startApiServer}; every one has a default. */
export interface ApiServerOptions {
  /** TCP port on 127.0.0.1; `0` (default) picks a free one. */
  port?: number;
  /** Time source for timestamps, bookmarks, watch timeouts and injected delays (default: wall clock). */
  clock?: Clock;
  /** How many events the history keeps for watch replays and continue tokens (default 10 000). */
  historySize?: number;
  /** Period of watch BOOKMARK events when a client allows them (default 5 000 ms). */
  bookmarkIntervalMs?: number;
  /** How expired watches are answered (default `'alternate'`: HTTP 410, then in-stream ERROR, …). */
  expiredWatch?: ExpiredWatchMode;
  /** How many requests {@link ApiServer.requests} keeps (default 1 000). */
  requestLogLimit?: number;
  /**
   * How many bytes may wait for one watch client that reads slowly (default 8 MiB). A client further behind has its
   * watch cut, as kube-apiserver does, and relists or rewatches; the server's memory stays bounded.
   */
  watchBufferBytes?: number;
  /**
   * Host names (served with the bound port) or `host:port` pairs accepted in the `Host` header besides localhost,
   * 127.0.0.1 and [::1]; any other Host is refused with 403, so DNS rebinding cannot reach the server.
   */
  allowedHosts?: readonly string[];
  /** Origins (`http://localhost:3000`) whose requests are served; any other `Origin` header is refused with 403. */
  allowedOrigins?: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401); the kubeconfigs carry it. */
  token?: string;
  /**
   * Serve HTTPS with a certificate made at start for localhost, 127.0.0.1, [::1] and `allowedHosts` (default
   * false). The kubeconfigs trust exactly that certificate ({@link ApiServer.caCertPem}).
   */
  tls?: boolean;
  /**
   * The IPv4 range Service cluster IPs are allocated from, as kube-apiserver's `--service-cluster-ip-range` (default
   * `10.96.0.0/12`). A Service asking for an IP gets it if free and in range, else `422`; headless Services (`None`) get
   * none; deleting a Service frees its IP. Node ports come from 30000–32767.
   */
  serviceClusterIpRange?: string;
}

/** Options of the fault hooks. */
export interface FaultOptions {
  /** Which requests the fault applies to; `path` includes the query string. Default: all. */
  match?: RequestMatcher;
}

/** A running in-memory Kubernetes API server. */
export interface ApiServer {
  /** `http://127.0.0.1:PORT` (`https://` with {@link ApiServerOptions.tls}). */
  readonly url: string;
  /** With {@link ApiServerOptions.tls}: the server's self-signed certificate (PEM), which clients must trust. */
  readonly caCertPem?: string;
  /**
   * A fresh client-node `KubeConfig` pointing at this server (namespace `default`). With `as`, its requests carry
   * `Impersonate-User: <as>`, which names the client in {@link requests} and is what {@link partition} selects.
   */
  kubeConfig(opts?: { as?: string }): KubeConfig;
  /** The text of a kubeconfig file pointing at this server, for kubectl or `KubeConfig.loadFromString`. */
  kubeconfigYaml(): string;
  /** Stops listening, ends every watch and drops every connection. Safe to call twice. */
  close(): Promise<void>;
  /** Cuts every open watch stream (a clean end; clients reconnect from their last resourceVersion). */
  dropWatches(): void;
  /**
   * Ends every open watch stream with an in-stream `ERROR` event whose `Status` has `status` (default 500), as
   * a server whose storage failed under the watch does (410 is {@link compact}'s business and is refused here).
   *
   * @throws RangeError for a status outside 400–599, or 410.
   */
  failWatches(status?: number): void;
  /** Forgets the event history: watches and continue tokens from before the current resourceVersion get 410. */
  compact(): void;
  /** Answers the next `n` matching requests with `status` (default 503) and a `Status` body. */
  failNext(n: number, status?: number, opts?: FaultOptions): void;
  /** Delays the next `n` matching requests by `ms`. */
  delayNext(n: number, ms: number, opts?: FaultOptions): void;
  /**
   * Cuts one client (by the `as` of its {@link kubeConfig}) off, as a network partition would: its requests in
   * flight are dropped, and new ones fail with 503 (`fail`, the default), lose their connection (`reset`) or
   * never get an answer (`hang`) until {@link heal}. Every other client is served as usual.
   *
   * @throws RangeError for an empty client name or an unknown mode.
   */
  partition(client: string, mode?: PartitionMode): void;
  /** Ends the partition of `client`: its hanging requests are dropped and new ones are served. */
  heal(client: string): void;
  /** The most recent requests, oldest first (a snapshot; `path` includes the query string). */
  readonly requests: ReadonlyArray<RequestRecord>;
  /** The global resourceVersion counter, as a decimal string. */
  resourceVersion(): string;
  /** How many watch streams are open right now. */
  openWatches(): number;
  /** Watch buffering counters: bytes waiting for clients, the peak per stream, watches cut as too slow. */
  watchStats(): WatchStats;
}

// `host:port` or `[v6]:port` as it goes into a certificate: the name alone.
function hostName(allowed: string): string {
  return allowed.startsWith('[') ? allowed.slice(1, allowed.indexOf(']')) : allowed.split(':')[0]!;
}

/** Namespaces every cluster starts with. */
const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Starts an in-memory API server on 127.0.0.1 that speaks the Kubernetes REST API: discovery, CRUD,
 * patch (merge, JSON, strategic-as-merge, server-side apply), list with selectors and pagination,
 * watch with replay, bookmarks and 410s, CRDs served as soon as they are created; the built-in groups
 * (core, apps, batch, networking, RBAC, policy, …) with their `status` and `scale` subresources, defaults
 * and name, label and annotation validation. No controllers run: status is what clients write to it.
 *
 * @throws RangeError for a non-positive `bookmarkIntervalMs`, `historySize` or `watchBufferBytes`; an empty `token`; a
 *   `serviceClusterIpRange` that is not an IPv4 CIDR.
 * @example
 * const server = await startApiServer();
 * const core = server.kubeConfig().makeApiClient(CoreV1Api);
 * await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c' } } });
 * await server.close();
 */
export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 5_000;
  if (!(bookmarkIntervalMs > 0)) throw new RangeError(`bookmarkIntervalMs must be positive, got ${bookmarkIntervalMs}`);
  const watchBufferBytes = opts.watchBufferBytes ?? 8 * 1024 * 1024;
  if (!(watchBufferBytes > 0)) throw new RangeError(`watchBufferBytes must be positive, got ${watchBufferBytes}`);
  if (opts.token !== undefined && !/^\S+$/.test(opts.token)) throw new RangeError('token must be non-empty, without spaces');
  const clock = opts.clock ?? realClock;
  const state: ServerState = {
    store: new Store({ historySize: opts.historySize }),
    registry: new ResourceRegistry(),
    clock,
    hooks: builtinHooks(),
    serviceIpRange: parseIpv4Cidr(opts.serviceClusterIpRange ?? '10.96.0.0/12'),
  };
  const nsType = state.registry.byPlural('v1', 'namespaces')!;
  for (const name of INITIAL_NAMESPACES) createObject(state, nsType, undefined, { metadata: { name } }, { manager: 'rxkrt-apiserver' });

  const cert = opts.tls ? selfSignedCert(['localhost', '127.0.0.1', '::1', ...(opts.allowedHosts ?? []).map(hostName)]) : undefined;
  const hub = new WatchHub(state, { bookmarkIntervalMs, expired: opts.expiredWatch ?? 'alternate', bufferBytes: watchBufferBytes });
  const faults = new Faults();
  const partitions = new Partitions();
  const sleeping = new Map<TimerHandle, () => void>();
  let closed = false;
  const ctx: ServerContext = {
    state,
    hub,
    faults,
    partitions,
    log: [],
    logLimit: opts.requestLogLimit ?? 1_000,
    serverAddress: '',
    access: {
      port: 0,
      allowedHosts: opts.allowedHosts ?? [],
      allowedOrigins: opts.allowedOrigins ?? [],
      token: opts.token,
      tls: cert !== undefined,
    },
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = clock.setTimeout(() => {
          sleeping.delete(timer);
          resolve();
        }, ms);
        sleeping.set(timer, resolve);
      }),
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // After close, a delayed request wakes up to a destroyed socket: sendJson skips it.
    if (closed) {
      res.destroy();
      return;
    }
    // The last resort: handleRequest answers every failure itself, but a bug there must cost one request,
    // never the process (an unhandled rejection ends it).
    handleRequest(ctx, req, res).catch((e: unknown) => sendError(res, e));
  };
  const server = cert ? createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, onRequest) : createServer(onRequest);
  server.on('connect', refuseConnect);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  ctx.serverAddress = `127.0.0.1:${port}`;
  ctx.access.port = port;
  const url = `${cert ? 'https' : 'http'}://127.0.0.1:${port}`;
  const credentials: ClientCredentials = { caPem: cert?.certPem, token: opts.token };

  let closing: Promise<void> | undefined;
  return {
    url,
    caCertPem: cert?.certPem,
    kubeConfig: (o) => kubeConfigFor(url, { ...credentials, as: o?.as }),
    kubeconfigYaml: () => kubeconfigYaml(url, credentials),
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        hub.close();
        faults.clear();
        partitions.clear();
        for (const [timer, wake] of sleeping) {
          timer.cancel();
          wake();
        }
        sleeping.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
    dropWatches: () => hub.dropAll(),
    failWatches: (status = 500) => {
      checkFailureStatus(status, 'failWatches');
      if (status === 410) throw new RangeError('failWatches: 410 is how expired watches are answered; use compact()');
      hub.failAll(new StatusError(status, reasonForCode(status), `injected watch failure: ${status} ${reasonForCode(status)}`));
    },
    compact: () => state.store.compact(),
    failNext: (n, status, o) => faults.failNext(n, status, o?.match),
    delayNext: (n, ms, o) => faults.delayNext(n, ms, o?.match),
    partition: (client, mode = 'fail') => partitions.cutOff(client, mode),
    heal: (client) => partitions.heal(client),
    get requests() {
      return [...ctx.log];
    },
    resourceVersion: () => String(state.store.resourceVersion()),
    openWatches: () => hub.size,
    watchStats: () => hub.stats(),
  };
}
