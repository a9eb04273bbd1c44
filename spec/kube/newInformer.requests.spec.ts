// newInformer against a server that misbehaves at the HTTP level: silence, endless pages, 429s. Time is virtual.
import { describe, it, expect } from '@jest/globals';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { newInformer, informerStats, PaginationError, RequestTimeoutError, type InformerOptions } from '../../src/kube/index.js';
import { Replica, expectConverged, pause, serverVersions, until } from '../helpers/kube.js';
import { listOf, watchOf } from '../helpers/apiProxy.js';
import { proxiedHarness } from '../helpers/proxiedHarness.js';
import { ManualScheduler } from '../helpers/manualScheduler.js';

const cm = (name: string): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: {} });
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describe('newInformer against a misbehaving server', () => {
  const { h, proxyTo } = proxiedHarness();

  /** `n` ConfigMaps on a server, a proxy in front, and a virtual clock for the informer's timers. */
  async function setup(n: number) {
    const server = await h.server();
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    for (let i = 0; i < n; i++) await core.createNamespacedConfigMap({ namespace: 'default', body: cm(`c${i}`) });
    const proxy = await proxyTo(server.url);
    const clock = new ManualScheduler();
    const stop = new AbortController();
    h.stop().addEventListener('abort', () => stop.abort());
    const start = (opts: InformerOptions = {}) => {
      // The top of the jitter range unless a test says otherwise, so the waits are the backoff itself.
      const informer = newInformer<V1ConfigMap>(proxy.kubeConfig(), CM, {
        stop: stop.signal,
        timerScheduler: clock,
        ...opts,
        backoff: { random: () => 1, ...opts.backoff },
      });
      return { informer, replica: new Replica(informer) };
    };
    const lists = () => proxy.requests.filter(listOf('/configmaps'));
    return { server, kc, proxy, clock, stop, start, lists };
  }

  describe('requestTimeoutMs', () => {
    it('should abort a LIST page that never answers after 60 s by default, report a RequestTimeoutError and retry with backoff', async () => {
      const { proxy, clock, start, lists, kc } = await setup(3);
      // The second page of the first LIST never answers.
      proxy.on((r) => listOf('/configmaps')(r) && r.url.searchParams.has('continue'), { kind: 'stall' }, 1);
      const { informer, replica } = start({ pageSize: 2 });
      await until(() => lists().length === 2 && clock.pending().includes(60_000), 'the stalled second page and its timeout');
      expect(replica.errors).toEqual([]);

      clock.advance(60_000);
      await until(() => replica.errors.length === 1, 'the timeout to be reported');
      const error = replica.errors[0]!.error as RequestTimeoutError;
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error).toMatchObject({ method: 'GET', timeoutMs: 60_000 });
      expect(error.path).toMatch(/^\/api\/v1\/configmaps\?limit=2&continue=/);
      expect(replica.errors[0]!.message).toMatch(
        /list of \/api\/v1\/configmaps failed; retrying: GET \/api\/v1\/configmaps\?.* no answer within 60000 ms/,
      );
      // The request was really aborted, not merely forgotten.
      await until(() => lists()[1]!.clientAborted, 'the stalled request to be aborted');
      expect(informerStats(informer)).toMatchObject({ timeouts: 1, errors: 1, lists: 1 });
      expect(informer.hasSynced()).toBe(false);

      // Backoff, then a LIST that answers.
      expect(clock.pending()).toEqual([100]);
      clock.advanceToNext();
      expect(await informer.waitUntilSynced()).toBe(true);
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after a LIST timeout');
      expect(informerStats(informer)).toMatchObject({ lists: 2, timeouts: 1 });
    });

    it('should honour a custom requestTimeoutMs', async () => {
      const { proxy, clock, start } = await setup(1);
      proxy.on(listOf('/configmaps'), { kind: 'stall' }, 1);
      const { informer, replica } = start({ requestTimeoutMs: 5_000 });
      await until(() => clock.pending().includes(5_000), 'the 5 s timeout');
      clock.advance(5_000);
      await until(() => replica.errors.length === 1, 'the timeout');
      expect(replica.errors[0]!.error).toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 5_000 });
      expect(informerStats(informer)!.timeouts).toBe(1);
    });
  });

  describe('maxListPages', () => {
    /** A LIST page with no items and the given continue token. */
    const page = (token: string) => ({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '1', continue: token },
      items: [],
    });

    it('should abandon a LIST whose pages never end after maxListPages, report it and retry', async () => {
      const { proxy, clock, start, lists, kc } = await setup(2);
      let n = 0;
      const endless = proxy.on(listOf('/configmaps'), () => ({ kind: 'answer', status: 200, body: page(`token-${++n}`) }));
      const { informer, replica } = start({ maxListPages: 5 });
      await until(() => replica.errors.length === 1, 'the abandoned LIST');
      expect(lists()).toHaveLength(5);
      const error = replica.errors[0]!.error as PaginationError;
      expect(error).toBeInstanceOf(PaginationError);
      expect(error).toMatchObject({ path: '/api/v1/configmaps', pages: 5, continueToken: 'token-5', reason: 'tooManyPages' });
      expect(replica.errors[0]!.message).toMatch(
        /list of \/api\/v1\/configmaps failed; retrying: LIST \/api\/v1\/configmaps: still not complete after 5 pages/,
      );

      // Retried with backoff; once the server behaves, the LIST completes.
      endless();
      expect(clock.pending()).toHaveLength(1);
      clock.advanceToNext();
      expect(await informer.waitUntilSynced()).toBe(true);
      await expectConverged(replica, () => serverVersions(kc, 'v1', 'ConfigMap'), 'after an endless LIST');
      expect(informerStats(informer)).toMatchObject({ lists: 2, errors: 1 });
    });

    it('should abandon a LIST at once when the server repeats a continue token', async () => {
      const { proxy, start, lists } = await setup(1);
      proxy.on(listOf('/configmaps'), { kind: 'answer', status: 200, body: page('same') });
      const { replica } = start();
      await until(() => replica.errors.length === 1, 'the abandoned LIST');
      expect(lists()).toHaveLength(2);
      expect(replica.errors[0]!.error).toMatchObject({
        name: 'PaginationError',
        pages: 2,
        continueToken: 'same',
        reason: 'repeatedContinue',
      });
      expect(replica.errors[0]!.message).toContain('the server sent continue token "same" twice (page 2)');
    });
  });

  describe('Retry-After', () => {
    const when = 'Thu, 03 Dec 2026 06:00:00 GMT';
    const fiveLater = 'Thu, 03 Dec 2026 06:00:05 GMT';
    const cases: Array<[string, number, Record<string, string>, unknown, number]> = [
      ['a 429 with Retry-After in seconds', 429, { 'Retry-After': '7' }, undefined, 7_000],
      ['a 503 with a Retry-After beyond the 30 s cap', 503, { 'Retry-After': '3600' }, undefined, 30_000],
      [
        'a 429 with an HTTP-date Retry-After (read against the Date header)',
        429,
        { 'Retry-After': fiveLater, Date: when },
        undefined,
        5_000,
      ],
      ['a 429 whose Status says details.retryAfterSeconds', 429, {}, { retryAfterSeconds: 2 }, 2_000],
    ];
    for (const [what, status, headers, details, wait] of cases) {
      it(`should wait as long as the server asks on ${what} before listing again`, async () => {
        const { proxy, clock, start, lists } = await setup(1);
        const body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, message: 'slow down', details };
        proxy.on(listOf('/configmaps'), { kind: 'answer', status, headers, body }, 1);
        const { informer, replica } = start();
        await until(() => replica.errors.length === 1, 'the refused LIST');
        expect(replica.errors[0]!.error).toMatchObject({ statusCode: status, retryAfterMs: wait === 30_000 ? 3_600_000 : wait });
        expect(clock.pending()).toEqual([wait]);
        clock.advance(wait - 1);
        expect(lists()).toHaveLength(1);
        clock.advance(1);
        expect(await informer.waitUntilSynced()).toBe(true);
        expect(lists()).toHaveLength(2);
      });
    }

    it('should ignore Retry-After on a 4xx other than 429, and never let it shorten the backoff', async () => {
      const { proxy, clock, start } = await setup(1);
      const status = (code: number) => ({ kind: 'Status', code });
      proxy.on(listOf('/configmaps'), { kind: 'answer', status: 429, headers: { 'Retry-After': '0' }, body: status(429) }, 1);
      proxy.on(listOf('/configmaps'), { kind: 'answer', status: 403, headers: { 'Retry-After': '9' }, body: status(403) }, 1);
      const { informer, replica } = start({ backoff: { initialMs: 500 } });
      await until(() => replica.errors.length === 1, 'the 403');
      expect(clock.pending()).toEqual([500]);
      clock.advanceToNext();
      await until(() => replica.errors.length === 2, 'the 429');
      expect(clock.pending()).toEqual([1_000]);
      clock.advanceToNext();
      expect(await informer.waitUntilSynced()).toBe(true);
    });

    it("should honour an in-stream watch ERROR's details.retryAfterSeconds", async () => {
      const { proxy, clock, start } = await setup(1);
      const error = { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 4 } };
      proxy.on(watchOf('/configmaps'), { kind: 'stream', lines: [{ type: 'ERROR', object: error }] }, 1);
      const { informer, replica } = start();
      expect(await informer.waitUntilSynced()).toBe(true);
      await until(() => replica.errors.length === 1, 'the watch error');
      expect(clock.pending()).toEqual([4_000]);
    });
  });

  describe('stop', () => {
    it('should abort the LIST in flight and ask for no further page', async () => {
      const { proxy, start, lists, stop } = await setup(12);
      // The fifth page stalls until the client goes away.
      let seen = 0;
      proxy.on(listOf('/configmaps'), () => (++seen === 5 ? { kind: 'stall' } : { kind: 'pass' }));
      const { informer } = start({ pageSize: 1 });
      await until(() => lists().length === 5, 'five pages asked for');
      stop.abort();
      await until(() => lists()[4]!.clientAborted, 'the page in flight to be aborted');
      // Give a further page every chance to be asked for: none is.
      await pause(100);
      expect(lists()).toHaveLength(5);
      expect(informerStats(informer)).toMatchObject({ state: 'stopped', errors: 0 });
      expect(informer.hasSynced()).toBe(false);
    });
  });
});
