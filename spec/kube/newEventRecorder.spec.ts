import { describe, it, expect, afterEach, beforeAll, afterAll } from '@jest/globals';
import { EventsV1Api, type KubeConfig, type KubernetesObject, type EventsV1Event } from '@kubernetes/client-node';
import { setLogger, UsageError } from '../../src/index.js';
import { newEventRecorder, type EventRecorder } from '../../src/kube/index.js';
import { Harness, requestsTo, until } from '../helpers/kube.js';

const gadget = (name: string): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7' },
});

describe('newEventRecorder', () => {
  const h = new Harness();
  const recorders: EventRecorder[] = [];
  afterEach(async () => {
    for (const r of recorders.splice(0)) r.stop();
    await h.release();
  });
  beforeAll(() => setLogger({ warn: () => {}, error: () => {} }));
  afterAll(() => setLogger());

  async function setup(opts: Partial<Parameters<typeof newEventRecorder>[1]> = {}) {
    const server = await h.server();
    const kc = server.kubeConfig();
    const recorder = newEventRecorder(kc, {
      component: 'example.com/gadgets',
      instance: 'replica-1',
      backoff: { initialMs: 5, maxMs: 20 },
      ...opts,
    });
    recorders.push(recorder);
    return { server, kc, recorder };
  }

  const events = async (kc: KubeConfig): Promise<EventsV1Event[]> =>
    (await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'default' })).items;

  it('should write an events.k8s.io/v1 Event naming the object, the controller and the replica', async () => {
    const { kc, recorder } = await setup();
    recorder.event(gadget('g1'), 'Normal', 'ConfigMapCreated', 'created ConfigMap gadget-g1');
    await recorder.idle();
    const [e, ...rest] = await events(kc);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({
      type: 'Normal',
      reason: 'ConfigMapCreated',
      action: 'ConfigMapCreated',
      note: 'created ConfigMap gadget-g1',
      reportingController: 'example.com/gadgets',
      reportingInstance: 'replica-1',
      regarding: { apiVersion: 'example.com/v1', kind: 'Gadget', namespace: 'default', name: 'g1', uid: 'uid-g1', resourceVersion: '7' },
    });
    expect(e!.series).toBeUndefined();
    expect(e!.metadata?.name).toMatch(/^g1\./);
    expect(recorder.stats()).toMatchObject({ recorded: 1, created: 1, pending: 0 });
  });

  it('should fold repeats into one Event with a series, and a different message into another Event', async () => {
    const { server, kc, recorder } = await setup();
    for (let i = 0; i < 5; i++) recorder.event(gadget('g1'), 'Warning', 'SyncFailed', 'quota exceeded');
    recorder.event(gadget('g1'), 'Warning', 'SyncFailed', 'quota exceeded, again');
    await recorder.idle();
    recorder.event(gadget('g1'), 'Warning', 'SyncFailed', 'quota exceeded');
    await recorder.idle();
    const all = await events(kc);
    expect(all).toHaveLength(2);
    const repeated = all.find((e) => e.note === 'quota exceeded');
    expect(repeated?.series?.count).toBe(6);
    expect(repeated?.series?.lastObservedTime).toBeDefined();
    expect(all.find((e) => e.note === 'quota exceeded, again')?.series).toBeUndefined();
    expect(requestsTo(server, 'POST', '/events')).toHaveLength(2);
    // The burst of repeats folded into at most a couple of writes.
    expect(requestsTo(server, 'PATCH', '/events').length).toBeLessThanOrEqual(3);
    expect(recorder.stats()).toMatchObject({ recorded: 7, aggregated: 5, created: 2, dropped: 0 });
  });

  it('should never block the caller: a full buffer drops new events and counts them', async () => {
    const { kc, recorder } = await setup({ maxPending: 3, qps: 1, burst: 1 });
    for (let i = 0; i < 10; i++) recorder.event(gadget(`g${i}`), 'Normal', 'Seen', `seen ${i}`);
    // All ten calls returned at once; three wait, seven were dropped.
    expect(recorder.stats()).toMatchObject({ recorded: 10, dropped: 7 });
    expect(recorder.stats().pending).toBeLessThanOrEqual(3);
    await until(
      () => recorder.stats().pending === 0,
      () => JSON.stringify(recorder.stats()),
    );
    expect((await events(kc)).map((e) => e.note).sort()).toEqual(['seen 0', 'seen 1', 'seen 2']);
  });

  it('should retry server failures, and give up (counted) after maxAttempts', async () => {
    const { server, kc, recorder } = await setup({ maxAttempts: 3 });
    const posts = { match: (m: string, p: string) => m === 'POST' && p.includes('/events') };
    server.failNext(2, 500, posts);
    recorder.event(gadget('g1'), 'Normal', 'Survived', 'two 500s');
    await recorder.idle();
    expect((await events(kc)).map((e) => e.note)).toEqual(['two 500s']);
    server.failNext(3, 503, posts);
    recorder.event(gadget('g2'), 'Normal', 'Lost', 'three 503s');
    await recorder.idle();
    expect(recorder.stats()).toMatchObject({ created: 1, failed: 1, pending: 0 });
    expect(await events(kc)).toHaveLength(1);
  });

  it('should refuse bad input, naming the value', () => {
    const kc = {} as KubeConfig;
    expect(() => newEventRecorder(kc, { component: '' })).toThrow(/component must be a non-empty string, got ""/);
    const r = newEventRecorder(kc, { component: 'c', instance: 'i' });
    recorders.push(r);
    expect(() => r.event({ metadata: {} }, 'Normal', 'R', 'm')).toThrow(UsageError);
    expect(() => r.event(gadget('g'), 'Info' as 'Normal', 'R', 'm')).toThrow(/type must be Normal or Warning, got "Info"/);
  });
});
