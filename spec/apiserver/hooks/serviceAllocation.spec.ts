import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Service } from '@kubernetes/client-node';
import { NODE_PORT_RANGE } from '../../../src/apiserver/hooks/serviceAllocation.js';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { expectApiError } from '../helpers.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('Service address allocation', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  // A /28: 14 addresses, all in the band kept for requested IPs, so the order is simply ascending.
  beforeAll(async () => {
    server = await startApiServer({ serviceClusterIpRange: '10.0.0.0/28' });
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(() => server.close());

  const create = (name: string, spec: V1Service['spec'] = {}): Promise<V1Service> =>
    core.createNamespacedService({ namespace: 'default', body: { metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } } });

  it('should allocate cluster IPs in turn, honour a requested one, and free them on delete', async () => {
    const a = await create('a');
    expect(a.spec).toMatchObject({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    const wanted = await create('wanted', { clusterIP: '10.0.0.5' });
    expect(wanted.spec!.clusterIPs).toEqual(['10.0.0.5']);
    expect((await create('b')).spec!.clusterIP).toBe('10.0.0.2');

    const taken = await expectApiError(create('dup', { clusterIP: '10.0.0.5' }), 422, 'Invalid');
    expect(taken.message).toBe(
      'Service "dup" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: provided IP is already allocated',
    );
    const outside = await expectApiError(create('out', { clusterIP: '10.96.0.10' }), 422, 'Invalid');
    expect(outside.details!.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.clusterIPs',
        message:
          'Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: the provided IP (10.96.0.10) is not in the valid range. The range of valid IPs is 10.0.0.0/28',
      },
    ]);
    const broadcast = await expectApiError(create('bc', { clusterIP: '10.0.0.15' }), 422);
    expect(broadcast.message).toContain('not in the valid range');
    const garbage = await expectApiError(create('garbage', { clusterIP: 'ten' }), 422);
    expect(garbage.details!.causes![0]!.field).toBe('spec.clusterIPs[0]');

    await core.deleteNamespacedService({ name: 'wanted', namespace: 'default' });
    expect((await create('again', { clusterIP: '10.0.0.5' })).spec!.clusterIP).toBe('10.0.0.5');
    await core.deleteNamespacedService({ name: 'a', namespace: 'default' });
    expect((await create('reuse')).spec!.clusterIP).toBe('10.0.0.1');
  });

  it('should allocate nothing for headless or ExternalName Services, and keep the IP on updates', async () => {
    const headless = await create('headless', { clusterIP: 'None', selector: { app: 'h' } });
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const ext = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } },
    });
    expect(ext.spec!.clusterIP).toBeUndefined();

    const kept = await create('kept');
    const replaced = await core.replaceNamespacedService({
      name: 'kept',
      namespace: 'default',
      body: { metadata: { name: 'kept' }, spec: { ports: [{ port: 81 }] } },
    });
    expect(replaced.spec!.clusterIP).toBe(kept.spec!.clusterIP);
    const moved = await expectApiError(
      core.patchNamespacedService(
        { name: 'kept', namespace: 'default', body: { spec: { clusterIP: '10.0.0.14', clusterIPs: ['10.0.0.14'] } } },
        merge,
      ),
      422,
    );
    expect(moved.message).toBe('Service "kept" is invalid: spec.clusterIPs[0]: Invalid value: "10.0.0.14": may not change once set');
  });

  it('should not hold an address for a dry run', async () => {
    const before = (await core.listNamespacedService({ namespace: 'default' })).items.map((s) => s.spec!.clusterIP);
    const dry = await core.createNamespacedService({
      namespace: 'default',
      dryRun: 'All',
      body: { metadata: { name: 'dry' }, spec: { ports: [{ port: 80 }] } },
    });
    expect(before).not.toContain(dry.spec!.clusterIP);
    expect((await create('wet')).spec!.clusterIP).toBe(dry.spec!.clusterIP);
  });

  it('should give NodePort and LoadBalancer ports node ports, and check requested ones', async () => {
    const np = await create('np', { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] });
    expect(np.spec!.ports!.map((p) => p.nodePort)).toEqual([NODE_PORT_RANGE.first, NODE_PORT_RANGE.first + 1]);
    expect(np.spec).toMatchObject({ externalTrafficPolicy: 'Cluster' });
    const lb = await create('lb', { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 31000 }] });
    expect(lb.spec!.ports![0]!.nodePort).toBe(31000);
    expect(lb.spec!.allocateLoadBalancerNodePorts).toBe(true);
    const noPorts = await create('lb-no-ports', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false });
    expect(noPorts.spec!.ports![0]!.nodePort).toBeUndefined();

    const taken = await expectApiError(create('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }), 422);
    expect(taken.message).toBe(
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is already allocated',
    );
    const low = await expectApiError(create('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }), 422);
    expect(low.details!.causes![0]!.message).toBe(
      'Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    const forbidden = await expectApiError(create('cip', { ports: [{ port: 80, nodePort: 30500 }] }), 422);
    expect(forbidden.details!.causes![0]).toMatchObject({ field: 'spec.ports[0].nodePort', reason: 'FieldValueForbidden' });
    // The same port number on TCP and UDP may share one node port within a Service.
    const dns = await create('dns', {
      type: 'NodePort',
      ports: [
        { name: 't', port: 53, nodePort: 30053 },
        { name: 'u', port: 53, protocol: 'UDP', nodePort: 30053 },
      ],
    });
    expect(dns.spec!.ports!.map((p) => p.nodePort)).toEqual([30053, 30053]);

    // Replacing without node ports keeps them; deleting frees them.
    const replaced = await core.replaceNamespacedService({
      name: 'np',
      namespace: 'default',
      body: { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } },
    });
    expect(replaced.spec!.ports!.map((p) => p.nodePort)).toEqual([NODE_PORT_RANGE.first, NODE_PORT_RANGE.first + 1]);
    await core.deleteNamespacedService({ name: 'lb', namespace: 'default' });
    expect((await create('np4', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] })).spec!.ports![0]!.nodePort).toBe(31000);
  });

  it('should free the node ports of a Service patched to ClusterIP', async () => {
    const np = await create('switch', { type: 'NodePort', ports: [{ port: 80, nodePort: 32000 }] });
    expect(np.spec!.ports![0]!.nodePort).toBe(32000);
    const cip = await core.patchNamespacedService({ name: 'switch', namespace: 'default', body: { spec: { type: 'ClusterIP' } } }, merge);
    expect(cip.spec!.ports![0]!.nodePort).toBeUndefined();
    expect(cip.spec!.clusterIP).toBe(np.spec!.clusterIP);
    expect((await create('takes-it', { type: 'NodePort', ports: [{ port: 80, nodePort: 32000 }] })).spec!.ports![0]!.nodePort).toBe(32000);
  });

  it('should refuse a service range that is not an IPv4 CIDR', async () => {
    await expect(startApiServer({ serviceClusterIpRange: '10.96.0.0' })).rejects.toThrow(
      'service IP range "10.96.0.0" is not an IPv4 CIDR',
    );
  });
});
