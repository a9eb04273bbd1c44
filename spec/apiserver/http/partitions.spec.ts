import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, CoreV1Api, type V1Lease } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { Partitions } from '../../../src/apiserver/http/partitions.js';
import { expectApiError } from '../helpers.js';

describe('Partitions', () => {
  it('should refuse an empty client or an unknown mode, naming it', () => {
    const p = new Partitions();
    expect(() => p.cutOff('', 'fail')).toThrow('partition: the client name must not be empty');
    expect(() => p.cutOff('a', 'drop' as 'fail')).toThrow('partition: unknown mode "drop"');
    expect(p.modeOf('a')).toBeUndefined();
    p.cutOff('a', 'hang');
    expect(p.modeOf('a')).toBe('hang');
    expect(p.modeOf(undefined)).toBeUndefined();
    p.heal('a');
    expect(p.modeOf('a')).toBeUndefined();
  });
});

describe('ApiServer partitions and the request record', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  const listAs = (as: string) => server.kubeConfig({ as }).makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });

  it('should record who sent each request, when, and how it was answered', async () => {
    const before = Date.now();
    await listAs('replica-a');
    await server.kubeConfig().makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });
    const [a, anonymous] = server.requests.slice(-2);
    expect(a).toMatchObject({ method: 'GET', client: 'replica-a', status: 200 });
    expect(a!.at).toBeGreaterThanOrEqual(before);
    expect(anonymous!.client).toBeUndefined();
  });

  it('should fail only the partitioned client with 503 until healed', async () => {
    server.partition('replica-a');
    await expectApiError(listAs('replica-a'), 503, 'ServiceUnavailable');
    await listAs('replica-b');
    expect(server.requests.slice(-2).map((r) => [r.client, r.status])).toEqual([
      ['replica-a', 503],
      ['replica-b', 200],
    ]);
    server.heal('replica-a');
    await listAs('replica-a');
  });

  it('should drop the connection of a client partitioned with reset', async () => {
    server.partition('replica-a', 'reset');
    await expect(listAs('replica-a')).rejects.toThrow();
    const last = server.requests.at(-1)!;
    expect([last.client, last.status]).toEqual(['replica-a', undefined]);
    server.heal('replica-a');
    await listAs('replica-a');
  });

  it('should leave a request of a client partitioned with hang unanswered until healed, and cut its open watches', async () => {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=1`, { headers: { 'Impersonate-User': 'replica-a' } });
    const reader = res.body!.getReader();
    server.partition('replica-a', 'hang');
    // The open watch was in flight: cut.
    await expect(
      (async () => {
        try {
          for (;;) if ((await reader.read()).done) return 'cut';
        } catch {
          return 'cut';
        }
      })(),
    ).resolves.toBe('cut');
    let answered = false;
    const pending = listAs('replica-a').then(
      () => (answered = true),
      () => 'dropped',
    );
    await listAs('replica-b');
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    server.heal('replica-a');
    await expect(pending).resolves.toBe('dropped');
  });

  it('should serve Leases with MicroTime kept to the microsecond and 409 on a stale resourceVersion', async () => {
    const leases = server.kubeConfig().makeApiClient(CoordinationV1Api);
    const created = await leases.createNamespacedLease({
      namespace: 'default',
      body: { metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 } },
    });
    const raw = async () =>
      (await (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/l`)).json()) as {
        metadata: { resourceVersion: string };
        spec: Record<string, unknown>;
      };
    const micro = '2026-12-03T09:25:34.123456Z';
    const put = (resourceVersion: string, holderIdentity: string) =>
      fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/l`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'l', namespace: 'default', resourceVersion },
          spec: { holderIdentity, leaseDurationSeconds: 15, acquireTime: micro, renewTime: micro, leaseTransitions: 1 },
        }),
      });
    const first = await put(created.metadata!.resourceVersion!, 'b');
    expect(first.status).toBe(200);
    expect((await raw()).spec).toMatchObject({ holderIdentity: 'b', acquireTime: micro, renewTime: micro, leaseTransitions: 1 });
    const stale = await put(created.metadata!.resourceVersion!, 'c');
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { reason: string }).reason).toBe('Conflict');
    expect((await raw()).spec['holderIdentity']).toBe('b');
    // client-node's typed API reads it back too.
    const typed: V1Lease = await leases.readNamespacedLease({ namespace: 'default', name: 'l' });
    expect(typed.spec?.holderIdentity).toBe('b');
    expect(String(typed.spec?.renewTime)).toContain('2026');
  });
});
