import { describe, expect, it } from '@jest/globals';
import { defaultPodSpec, defaultPodTemplate, defaultPullPolicy } from '../../../src/apiserver/hooks/podDefaults.js';
import type { JsonObject } from '../../../src/apiserver/apimachinery/json.js';
import { request, serverForSuite } from '../helpers.js';

describe('defaultPullPolicy', () => {
  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['registry.local:5000/team/app', 'Always'],
    ['registry.local:5000/team/app:v2', 'IfNotPresent'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['', 'Always'],
  ])('should pick %j → %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});

describe('defaultPodSpec', () => {
  it('should fill the spec, container, port, probe and volume defaults of a Pod', () => {
    const spec: JsonObject = {
      containers: [
        {
          name: 'c',
          image: 'app:1',
          ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
          readinessProbe: { httpGet: { port: 80 } },
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
        },
      ],
      initContainers: [{ name: 'i', image: 'init' }],
      volumes: [{ name: 'empty' }, { name: 's', secret: { secretName: 's' } }, { name: 'cm', configMap: { name: 'c', defaultMode: 256 } }],
    };
    defaultPodSpec(spec, true);
    expect(spec).toEqual({
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      containers: [
        {
          name: 'c',
          image: 'app:1',
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          ports: [
            { containerPort: 80, protocol: 'TCP' },
            { containerPort: 53, protocol: 'UDP' },
          ],
          readinessProbe: {
            httpGet: { port: 80, path: '/', scheme: 'HTTP' },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } },
        },
      ],
      initContainers: [
        {
          name: 'i',
          image: 'init',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      volumes: [
        { name: 'empty', emptyDir: {} },
        { name: 's', secret: { secretName: 's', defaultMode: 420 } },
        { name: 'cm', configMap: { name: 'c', defaultMode: 256 } },
      ],
    });
  });

  it('should keep what the spec sets', () => {
    const spec: JsonObject = {
      dnsPolicy: 'Default',
      restartPolicy: 'Never',
      securityContext: { runAsUser: 1000 },
      terminationGracePeriodSeconds: 0,
      schedulerName: 'mine',
      enableServiceLinks: false,
      containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Never', terminationMessagePolicy: 'FallbackToLogsOnError' }],
    };
    const before = structuredClone(spec);
    defaultPodSpec(spec, true);
    expect(spec).toMatchObject(before);
    expect(spec.terminationGracePeriodSeconds).toBe(0);
  });

  it('should copy container ports to host ports on the host network', () => {
    const spec: JsonObject = { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }] }] };
    defaultPodSpec(spec, true);
    expect((spec.containers as JsonObject[])[0]!.ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
  });

  it('should leave enableServiceLinks and requests out of a template', () => {
    const workloadSpec: JsonObject = {
      template: { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' } } }] } },
    };
    defaultPodTemplate(workloadSpec);
    const spec = (workloadSpec.template as JsonObject).spec as JsonObject;
    expect(spec.enableServiceLinks).toBeUndefined();
    expect(spec.restartPolicy).toBe('Always');
    expect((spec.containers as JsonObject[])[0]!.resources).toEqual({ limits: { cpu: '1' } });
  });
});

describe('Pod defaults through the suite.server', () => {
  const suite = serverForSuite();

  it('should answer a created Pod with its defaults, and keep them on a replace that leaves them out', async () => {
    const created = await suite.core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    });
    expect(created.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
      enableServiceLinks: true,
    });
    expect(created.spec!.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    // A PUT of the original body (no defaults) changes nothing: same spec, same generation, no new resourceVersion.
    const raw = await request<{ metadata: { generation: number; resourceVersion: string } }>(
      suite.server.url,
      'PUT',
      '/api/v1/namespaces/default/pods/p',
      {
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    );
    expect(raw.status).toBe(200);
    expect(raw.json.metadata.generation).toBe(1);
    expect(raw.json.metadata.resourceVersion).toBe(created.metadata!.resourceVersion);
  });
});
