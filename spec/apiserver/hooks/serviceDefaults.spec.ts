import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../../src/apiserver/apimachinery/json.js';
import { defaultService } from '../../../src/apiserver/hooks/serviceDefaults.js';
import type { StoredObject } from '../../../src/apiserver/storage/storedObject.js';

function defaulted(spec: JsonObject, before?: JsonObject): JsonObject {
  const obj: JsonObject = { metadata: { name: 's' }, spec };
  const stored = before ? ({ metadata: { name: 's' }, spec: before } as unknown as StoredObject) : undefined;
  defaultService(obj, stored);
  return obj.spec as JsonObject;
}

describe('defaultService', () => {
  it('should fill the defaults of a plain Service', () => {
    expect(defaulted({ selector: { app: 'a' }, ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] })).toEqual({
      selector: { app: 'a' },
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
    });
  });

  it.each([
    ['NodePort', { type: 'NodePort' }, { externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster' }],
    ['LoadBalancer', { type: 'LoadBalancer' }, { externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true }],
    ['ClusterIP with external IPs', { externalIPs: ['1.2.3.4'] }, { externalTrafficPolicy: 'Cluster' }],
    ['ClientIP affinity', { sessionAffinity: 'ClientIP' }, { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } }],
    ['headless with a selector', { clusterIP: 'None', selector: { a: 'b' } }, { clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack' }],
    [
      'headless without a selector',
      { clusterIP: 'None' },
      { clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4'] },
    ],
    ['clusterIPs alone', { clusterIPs: ['10.96.0.9'] }, { clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] }],
  ])('should default a %s Service', (_what, spec, expected) => {
    expect(defaulted(spec)).toMatchObject(expected);
  });

  it('should give an ExternalName Service neither families nor traffic policy', () => {
    const spec = defaulted({ type: 'ExternalName', externalName: 'example.com' });
    expect(spec).toEqual({ type: 'ExternalName', externalName: 'example.com', sessionAffinity: 'None' });
  });

  it('should give the ingress IPs of a load balancer the VIP mode', () => {
    const obj: JsonObject = {
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example' }, { ip: '5.6.7.8', ipMode: 'Proxy' }] } },
    };
    defaultService(obj, undefined);
    expect(obj.status).toEqual({
      loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }, { hostname: 'lb.example' }, { ip: '5.6.7.8', ipMode: 'Proxy' }] },
    });
  });

  it('should drop the session affinity config of a None affinity', () => {
    expect(defaulted({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }).sessionAffinityConfig).toBeUndefined();
  });

  it('should carry allocated addresses over on update when the body leaves them out', () => {
    const before = {
      type: 'NodePort',
      clusterIP: '10.96.1.1',
      clusterIPs: ['10.96.1.1'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ port: 80, protocol: 'TCP', nodePort: 30001 }],
    };
    const spec = defaulted({ type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] }, before);
    expect(spec).toMatchObject({ clusterIP: '10.96.1.1', clusterIPs: ['10.96.1.1'], ports: [{ port: 80, nodePort: 30001 }, { port: 81 }] });
    expect((spec.ports as JsonObject[])[1]!.nodePort).toBeUndefined();
  });

  it('should drop the node ports a Service kept when it becomes ClusterIP', () => {
    const before = { type: 'NodePort', clusterIP: '10.96.1.1', ports: [{ port: 80, protocol: 'TCP', nodePort: 30001 }] };
    const spec = defaulted(
      {
        type: 'ClusterIP',
        ports: [
          { port: 80, nodePort: 30001 },
          { port: 81, nodePort: 30500 },
        ],
      },
      before,
    );
    expect(spec.ports).toEqual([
      { port: 80, protocol: 'TCP', targetPort: 80 },
      { port: 81, protocol: 'TCP', targetPort: 81, nodePort: 30500 },
    ]);
  });

  it('should drop the cluster IP when a Service becomes ExternalName', () => {
    const before = {
      type: 'ClusterIP',
      clusterIP: '10.96.1.1',
      clusterIPs: ['10.96.1.1'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    };
    const spec = defaulted({ ...structuredClone(before), type: 'ExternalName', externalName: 'x.example' }, before);
    expect(spec.clusterIP).toBeUndefined();
    expect(spec.clusterIPs).toBeUndefined();
    expect(spec.ipFamilies).toBeUndefined();
  });
});
