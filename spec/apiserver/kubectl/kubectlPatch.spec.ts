import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startKubectlSession, type KubectlSession } from './kubectl.js';

interface Container {
  name: string;
  image: string;
  env?: { name: string; value: string }[];
  ports?: { containerPort: number; protocol?: string }[];
}
interface Deployment {
  metadata: { labels?: Record<string, string>; generation: number };
  spec: { replicas: number; template: { spec: { containers: Container[] } } };
}
interface Service {
  spec: { ports: { name?: string; port: number; targetPort: number | string; protocol: string }[]; clusterIP: string };
}

// kubectl patch of every type against the built-in kinds: strategic merge by the kinds' merge keys, JSON merge, JSON patch.
describe('kubectl patch', () => {
  let s: KubectlSession;

  beforeAll(async () => {
    s = await startKubectlSession();
    await s.ok(['create', 'namespace', 'p']);
    await s.ok(['-n', 'p', 'create', 'deployment', 'web', '--image=nginx:1.27', '--port=80']);
    await s.ok(['-n', 'p', 'create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
  });
  afterAll(() => s.close());

  const deployment = async (): Promise<Deployment> =>
    JSON.parse(await s.ok(['-n', 'p', 'get', 'deployment', 'web', '-o', 'json'])) as Deployment;
  const service = async (): Promise<Service> => JSON.parse(await s.ok(['-n', 'p', 'get', 'service', 'web', '-o', 'json'])) as Service;
  /** The arguments of `kubectl -n p patch KIND web`, with the patch type (kubectl's default: strategic) and the body. */
  const patchArgs = (kind: string, body: unknown, type?: 'strategic' | 'merge' | 'json'): string[] => [
    '-n',
    'p',
    'patch',
    kind,
    'web',
    ...(type === undefined ? [] : [`--type=${type}`]),
    '-p',
    JSON.stringify(body),
  ];
  const patch = async (kind: string, body: unknown, type?: 'strategic' | 'merge' | 'json'): Promise<string> =>
    s.ok(patchArgs(kind, body, type));

  it('should merge a strategic patch into containers by name and env by name, keeping the rest', async () => {
    await patch('deployment', { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } });
    await patch(
      'deployment',
      { spec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'MODE', value: 'fast' }] }] } } } },
      'strategic',
    );
    const containers = (await deployment()).spec.template.spec.containers;
    // kubectl create deployment names the container after its image.
    expect(containers.map((c) => c.name).sort()).toEqual(['nginx', 'sidecar']);
    const web = containers.find((c) => c.name === 'nginx')!;
    expect(web).toMatchObject({ image: 'nginx:1.27', env: [{ name: 'MODE', value: 'fast' }], ports: [{ containerPort: 80 }] });
  });

  it('should delete a list item with $patch: delete and bump the generation only for spec changes', async () => {
    const before = (await deployment()).metadata.generation;
    await patch('deployment', { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } });
    const afterDelete = await deployment();
    expect(afterDelete.spec.template.spec.containers.map((c) => c.name)).toEqual(['nginx']);
    expect(afterDelete.metadata.generation).toBe(before + 1);
    await patch('deployment', { metadata: { labels: { tier: 'edge' } } }, 'merge');
    const afterLabel = await deployment();
    expect(afterLabel.metadata.labels).toMatchObject({ tier: 'edge' });
    expect(afterLabel.metadata.generation).toBe(before + 1);
  });

  it('should add a Service port by merging on port, and keep the allocated cluster IP', async () => {
    const ip = (await service()).spec.clusterIP;
    await patch('service', { spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } });
    const svc = await service();
    expect(svc.spec.ports.map((p) => p.port).sort()).toEqual([443, 80]);
    expect(svc.spec.ports.find((p) => p.port === 443)).toMatchObject({ protocol: 'TCP', targetPort: 8443 });
    expect(svc.spec.clusterIP).toBe(ip);
  });

  it('should apply a JSON merge patch, and leave the object as it was when a JSON patch test fails', async () => {
    await patch('deployment', { spec: { replicas: 4 } }, 'merge');
    expect((await deployment()).spec.replicas).toBe(4);
    await patch('deployment', [{ op: 'replace', path: '/spec/replicas', value: 2 }], 'json');
    expect((await deployment()).spec.replicas).toBe(2);
    const refused = await s.kubectl(
      patchArgs(
        'deployment',
        [
          { op: 'replace', path: '/spec/replicas', value: 9 },
          { op: 'test', path: '/spec/replicas', value: 5 },
        ],
        'json',
      ),
    );
    expect(refused.code).not.toBe(0);
    expect((await deployment()).spec.replicas).toBe(2);
  });

  it('should apply a List manifest (validated against OpenAPI v2), and refuse a strategic merge patch on a custom resource with 415', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    const file = join(s.dir, 'gadget.json');
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [crd] }));
    await s.ok(['apply', '-f', file]);
    writeFileSync(
      file,
      JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'p' }, spec: { size: 1 } }),
    );
    await s.ok(['apply', '-f', file]);
    const strategic = await s.kubectl(['-n', 'p', 'patch', 'gadget', 'g', '--type=strategic', '-p', '{"spec":{"size":2}}']);
    expect(strategic.code).not.toBe(0);
    expect(strategic.stderr).toMatch(/415|UnsupportedMediaType|not supported/i);
    await s.ok(['-n', 'p', 'patch', 'gadget', 'g', '--type=merge', '-p', '{"spec":{"size":2}}']);
    expect(JSON.parse(await s.ok(['-n', 'p', 'get', 'gadget', 'g', '-o', 'json']))).toMatchObject({ spec: { size: 2 } });
  });
});
