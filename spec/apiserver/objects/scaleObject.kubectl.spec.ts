import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';
import { waitFor } from '../helpers.js';

const KUBECTL = '/usr/bin/kubectl';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// kubectl's `scale` and `rollout status` against the embedded server. No controller runs there, so the test plays the
// Deployment controller: it writes the status that `rollout status` waits for through the status subresource.
describe('kubectl scale and rollout status', () => {
  let dir: string;
  let kubeconfig: string;
  let server: ApiServer | undefined;
  let apps: AppsV1Api;
  const args = (rest: string[]): string[] => ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...rest];
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: dir, KUBECONFIG: kubeconfig });
  const kubectl = (...rest: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(KUBECTL, args(rest), { env: env(), timeout: 20_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`kubectl ${rest.join(' ')} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });

  beforeAll(async () => {
    // A missing kubectl must fail these tests loudly, never skip them.
    await access(KUBECTL, constants.X_OK).catch(() => {
      throw new Error(`kubectl is required at ${KUBECTL} for these tests (install it, e.g. apt-get install kubectl)`);
    });
    dir = await mkdtemp(join(tmpdir(), 'rxkrt-kubectl-scale-'));
    kubeconfig = join(dir, 'kubeconfig');
    server = await startApiServer();
    await writeFile(kubeconfig, server.kubeconfigYaml(), { mode: 0o600 });
    apps = server.kubeConfig().makeApiClient(AppsV1Api);
    const manifest = join(dir, 'web.json');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
      },
    };
    await writeFile(manifest, JSON.stringify(deployment));
    expect((await kubectl('create', '-f', manifest)).trim()).toBe('deployment.apps/web created');
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('should find the apps kinds by their short names and categories', async () => {
    const resources = (await kubectl('api-resources', '--api-group=apps', '-o', 'wide')).split('\n');
    expect(resources.find((l) => l.startsWith('deployments'))).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+.*\ball\b/);
    expect((await kubectl('get', 'deploy', '-o', 'name')).trim()).toBe('deployment.apps/web');
    expect(await kubectl('get', 'all', '-o', 'name')).toContain('deployment.apps/web');
  });

  it('should scale a Deployment through its scale subresource', async () => {
    expect((await kubectl('scale', 'deployment', 'web', '--replicas=3')).trim()).toBe('deployment.apps/web scaled');
    expect((await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })).spec!.replicas).toBe(3);
    expect(await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')).toBe('3');
    // With --current-replicas kubectl checks the precondition itself, and a stale one fails.
    await expect(kubectl('scale', 'deployment', 'web', '--current-replicas=2', '--replicas=1')).rejects.toThrow(
      /Expected replicas to be 2, was 3/,
    );
    expect(
      server!.requests.some((r) => r.method === 'PATCH' && r.path.startsWith('/apis/apps/v1/namespaces/default/deployments/web/scale')),
    ).toBe(true);
  });

  it('should apply a changed manifest as a new generation, keeping the scaled replicas', async () => {
    const manifest = join(dir, 'web-v2.json');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } },
      },
    };
    await writeFile(manifest, JSON.stringify(deployment));
    const before = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect((await kubectl('apply', '-f', manifest)).trim()).toBe('deployment.apps/web configured');
    const after = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(after.metadata!.generation).toBe(before.metadata!.generation! + 1);
    expect(after.spec!.template.spec!.containers[0]!.image).toBe('nginx:1.28');
    expect(after.spec!.replicas).toBe(before.spec!.replicas);
  });

  it('should wait in rollout status until the status says the rollout is done', async () => {
    const child = spawn(KUBECTL, args(['rollout', 'status', 'deployment/web', '--timeout=60s']), { env: env() });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => out.includes('Waiting for deployment spec update to be observed'), 'kubectl to wait for the rollout', 20_000);
      const { metadata, spec } = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
      const replicas = spec!.replicas!;
      await apps.patchNamespacedDeploymentStatus(
        {
          name: 'web',
          namespace: 'default',
          body: {
            status: {
              observedGeneration: metadata!.generation,
              replicas,
              updatedReplicas: replicas,
              readyReplicas: replicas,
              availableReplicas: replicas,
            },
          },
        },
        merge,
      );
      expect(await exited).toBe(0);
      expect(out).toContain('deployment "web" successfully rolled out');
    } finally {
      child.kill();
    }
  });
});
