// Discovery: an informer finds an irregular plural, and waits for a CRD that is not installed yet.
import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { ApiextensionsV1Api, CustomObjectsApi, type KubernetesObject } from '@kubernetes/client-node';
import { TestScheduler } from 'rxjs/testing';
import { setLogger } from '../../src/index.js';
import { newInformer, informerStats } from '../../src/kube/index.js';
import { discoverPlural } from '../../src/kube/discovery.js';
import { Harness, Replica, installCrd, requestsTo, until } from '../helpers/kube.js';
import { advanceTo, pendingFrames } from '../helpers/virtualClock.js';

const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;
const OCTOPUS = { apiVersion: 'example.com/v1', kind: 'Octopus' } as const;

describe('discovery', () => {
  const h = new Harness();
  afterEach(() => h.release());
  beforeAll(() => setLogger({}));
  afterAll(() => setLogger());

  it('should find the plural of a kind, skip subresources, and answer undefined for an unknown kind or group', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, 'example.com', 'Octopus', 'octopodes');
    expect(await discoverPlural(kc, 'v1', 'Pod', undefined)).toBe('pods');
    expect(await discoverPlural(kc, 'example.com/v1', 'Octopus', undefined)).toBe('octopodes');
    expect(await discoverPlural(kc, 'example.com/v1', 'Octopus', 'octopuses')).toBeUndefined();
    expect(await discoverPlural(kc, 'example.com/v1', 'Squid', undefined)).toBeUndefined();
    expect(await discoverPlural(kc, 'nowhere.example.com/v1', 'Octopus', undefined)).toBeUndefined();
  });

  it('should list a kind whose plural the guess gets wrong at the plural discovery gives', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    await installCrd(kc, 'example.com', 'Octopus', 'octopodes');
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'octopodes',
      body: { ...OCTOPUS, metadata: { name: 'paul' } },
    });
    const octopodes = newInformer<KubernetesObject>(kc, OCTOPUS, { stop: h.stop() });
    const replica = new Replica(octopodes);
    expect(await octopodes.waitUntilSynced()).toBe(true);
    expect(Object.keys(replica.versions())).toEqual(['default/paul']);
    // The guess first (404), then discovery, then the LIST and WATCH at the right path; nothing reported.
    expect(requestsTo(server, 'GET', '/octopuses')).toHaveLength(1);
    expect(requestsTo(server, 'GET', /^\/apis\/example\.com\/v1$/)).toHaveLength(1);
    await until(() => server.openWatches() === 1, 'the watch at /octopodes');
    expect(replica.errors).toEqual([]);
  });

  it('should be synced and empty while the CRD is missing, probe discovery on its timer, and fill once the CRD appears', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const clock = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    // Jitter off: the probes come exactly every resourcePollMs.
    const widgets = newInformer<KubernetesObject>(kc, WIDGET, {
      stop: h.stop(),
      timerScheduler: clock,
      resourcePollMs: 1_000,
      backoff: { jitter: false },
    });
    const replica = new Replica(widgets);
    expect(await widgets.waitUntilSynced()).toBe(true);
    expect(widgets.list()).toEqual([]);
    await until(() => pendingFrames(clock).includes(1_000), 'the probe timer');
    expect(informerStats(widgets)!.state).toBe('absent');
    const probes = () => requestsTo(server, 'GET', /^\/apis\/example\.com\/v1$/).length;
    const before = probes();

    // Still missing at the first probe: it looks again a poll later.
    advanceTo(clock, 1_000);
    await until(() => probes() === before + 1 && pendingFrames(clock).includes(2_000), 'the first probe, and the next timer');
    expect(informerStats(widgets)!.state).toBe('absent');

    await installCrd(kc, 'example.com', 'Widget', 'widgets');
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { ...WIDGET, metadata: { name: 'w1' } },
    });
    advanceTo(clock, 2_000);
    await until(() => replica.state.has('default/w1'), 'w1, listed once the CRD is found');
    expect(replica.events().map((e) => `${e.type} ${(e.new ?? e.old)!.metadata!.name}`)).toEqual(['add w1']);
    await until(() => server.openWatches() === 1, 'the watch');
    expect(informerStats(widgets)).toMatchObject({ state: 'watching', errors: 0 });
    expect(replica.errors).toEqual([]);

    // Live from then on.
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { ...WIDGET, metadata: { name: 'w2' } },
    });
    await until(() => replica.state.has('default/w2'), 'w2');
    expect(replica.violations).toEqual([]);
  });

  it('should stay as it is while absent when stopped, making no more requests', async () => {
    const server = await h.server();
    const kc = server.kubeConfig();
    const clock = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const stop = new AbortController();
    const widgets = newInformer<KubernetesObject>(kc, WIDGET, { stop: stop.signal, timerScheduler: clock, backoff: { jitter: false } });
    expect(await widgets.waitUntilSynced()).toBe(true);
    await until(() => pendingFrames(clock).includes(5_000), 'the probe timer, at the default 5 s');
    stop.abort();
    expect(pendingFrames(clock)).toEqual([]);
    expect(informerStats(widgets)!.state).toBe('stopped');
    const requests = server.requests.length;
    advanceTo(clock, 60_000);
    await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(server.requests.length).toBe(requests + 1);
  });
});
