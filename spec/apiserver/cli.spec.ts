import { execFile, spawn } from 'node:child_process';
import { access, constants, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parseCliArgs, runCli, USAGE } from '../../src/apiserver/cli.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { nodeRequest, waitFor } from './helpers.js';

const KUBECTL = '/usr/bin/kubectl';

function capture(): { out: string[]; err: string[]; io: { stdout(t: string): void; stderr(t: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) } };
}

describe('parseCliArgs', () => {
  it('should parse ports and kubeconfig paths in both spellings', () => {
    expect(parseCliArgs([])).toEqual({ port: 0, help: false });
    expect(parseCliArgs(['--port', '8080', '--kubeconfig', '/tmp/k'])).toEqual({ port: 8080, kubeconfig: '/tmp/k', help: false });
    expect(parseCliArgs(['--port=0', '--kubeconfig=/x'])).toEqual({ port: 0, kubeconfig: '/x', help: false });
    expect(parseCliArgs(['-h']).help).toBe(true);
  });

  it('should parse --token and --tls', () => {
    expect(parseCliArgs(['--token', 'abc', '--tls'])).toEqual({ port: 0, token: 'abc', tls: true, help: false });
    expect(parseCliArgs(['--token=auto']).token).toBe('auto');
    expect(() => parseCliArgs(['--token'])).toThrow('--token needs a value');
    expect(() => parseCliArgs(['--token', 'a b'])).toThrow('--token: a token cannot contain spaces');
  });

  it('should parse --service-cluster-ip-range and refuse a range that is not an IPv4 CIDR', () => {
    expect(parseCliArgs(['--service-cluster-ip-range=10.0.0.0/16']).serviceClusterIpRange).toBe('10.0.0.0/16');
    expect(() => parseCliArgs(['--service-cluster-ip-range', '10.0.0.1/16'])).toThrow(
      '--service-cluster-ip-range: service IP range "10.0.0.1/16" has host bits set',
    );
  });

  it('should reject bad arguments', () => {
    expect(() => parseCliArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseCliArgs(['--port', 'http'])).toThrow('not a port number');
    expect(() => parseCliArgs(['--port', '70000'])).toThrow('not a port number');
    expect(() => parseCliArgs(['--verbose'])).toThrow('unknown argument: --verbose');
  });
});

describe('runCli', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxkrt-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('should print usage for --help and start nothing', async () => {
    const c = capture();
    expect(await runCli(['--help'], c.io)).toBeUndefined();
    expect(c.out.join('')).toBe(USAGE);
  });

  it('should print a working kubeconfig to stdout', async () => {
    const c = capture();
    const server = (await runCli([], c.io))!;
    try {
      expect(c.err.join('')).toContain(server.url);
      const kc = new KubeConfig();
      kc.loadFromString(c.out.join(''));
      expect(kc.getCurrentCluster()!.server).toBe(server.url);
      const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((n) => n.metadata!.name)).toContain('default');
    } finally {
      await server.close();
    }
  });

  it('should allocate Service cluster IPs from --service-cluster-ip-range', async () => {
    const server = (await runCli(['--service-cluster-ip-range', '192.168.7.0/29'], capture().io))!;
    try {
      const core = server.kubeConfig().makeApiClient(CoreV1Api);
      const svc = await core.createNamespacedService({
        namespace: 'default',
        body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } },
      });
      expect(svc.spec!.clusterIP).toBe('192.168.7.1');
    } finally {
      await server.close();
    }
  });

  it('should write the kubeconfig to a private file when asked', async () => {
    const file = join(dir, 'kubeconfig');
    const c = capture();
    const server = (await runCli(['--kubeconfig', file], c.io))!;
    try {
      expect(c.out).toEqual([]);
      expect(await readFile(file, 'utf8')).toBe(server.kubeconfigYaml());
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await server.close();
    }
  });
});

describe('the rxkrt-apiserver process', () => {
  // The entry point as `npm run apiserver` runs it, compiled on the fly by ts-node (a dev dependency
  // already): its exit codes and its signal handling live outside runCli.
  const CLI = fileURLToPath(new URL('../../src/apiserver/cli.ts', import.meta.url));
  const start = (...args: string[]) =>
    spawn(process.execPath, ['--no-warnings', '--loader', 'ts-node/esm', CLI, ...args], {
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1' },
    });
  const finished = (child: ReturnType<typeof start>) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    return {
      output: () => ({ stdout, stderr }),
      exit: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      ),
    };
  };

  it('should exit 2 with the usage for bad arguments, and 1 when the port is taken', async () => {
    const bad = finished(start('--bogus'));
    expect((await bad.exit).code).toBe(2);
    expect(bad.output().stderr).toContain('unknown argument: --bogus');
    expect(bad.output().stderr).toContain('Usage: rxkrt-apiserver');
    const taken = (await runCli([], capture().io))!;
    try {
      const busy = finished(start('--port', new URL(taken.url).port));
      expect((await busy.exit).code).toBe(1);
      expect(busy.output().stderr).toMatch(/^rxkrt-apiserver: .*EADDRINUSE/m);
    } finally {
      await taken.close();
    }
  }, 60_000);

  it('should serve until SIGTERM, then shut down and exit by itself', async () => {
    const child = start('--port', '0');
    const run = finished(child);
    await waitFor(() => run.output().stdout.includes('current-context'), 'the kubeconfig on stdout', 30_000);
    const kc = new KubeConfig();
    kc.loadFromString(run.output().stdout);
    const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata!.name)).toContain('default');
    child.kill('SIGTERM');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.output().stderr).toContain('rxkrt-apiserver: SIGTERM, shutting down');
  }, 60_000);
});

describe('kubectl against the standalone server', () => {
  let dir: string;
  let kubeconfig: string;
  let server: ApiServer | undefined; // stays undefined when beforeAll fails
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: dir, KUBECONFIG: kubeconfig });
  const kubectl = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { env: env(), timeout: 20_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`kubectl ${args.join(' ')} failed: ${error.message}\n${stderr}`));
          else resolve({ stdout, stderr });
        },
      );
    });

  beforeAll(async () => {
    // A missing kubectl must fail these tests loudly, never skip them.
    await access(KUBECTL, constants.X_OK).catch(() => {
      throw new Error(`kubectl is required at ${KUBECTL} for these tests (install it, e.g. apt-get install kubectl)`);
    });
    dir = await mkdtemp(join(tmpdir(), 'rxkrt-kubectl-'));
    kubeconfig = join(dir, 'kubeconfig');
    server = (await runCli(['--port', '0', '--kubeconfig', kubeconfig], capture().io))!;
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('should report the server version', async () => {
    const { stdout } = await kubectl('version', '-o', 'json');
    expect(JSON.parse(stdout).serverVersion).toMatchObject({ major: '1', minor: '32' });
  });

  it('should create objects from manifests, then custom objects of a CRD it created', async () => {
    const manifest = join(dir, 'manifest.yaml');
    await writeFile(
      manifest,
      [
        'apiVersion: v1',
        'kind: Namespace',
        'metadata:',
        '  name: demo',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: cfg',
        '  namespace: demo',
        '  labels: {app: web}',
        'data:',
        '  greeting: hello',
        '---',
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata:',
        '  name: widgets.example.com',
        'spec:',
        '  group: example.com',
        '  scope: Namespaced',
        '  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    storage: true',
        '    subresources: {status: {}}',
        '    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}',
        '',
      ].join('\n'),
    );
    const { stdout } = await kubectl('create', '-f', manifest);
    expect(stdout.trim().split('\n')).toEqual([
      'namespace/demo created',
      'configmap/cfg created',
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created',
    ]);
    // As against a real cluster, a kind from a CRD is mapped in a later kubectl call (in the same file,
    // kubectl may resolve every kind before creating anything: "ensure CRDs are installed first").
    const widget = join(dir, 'widget.yaml');
    await writeFile(widget, 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: demo\nspec: {size: 3}\n');
    expect((await kubectl('create', '-f', widget)).stdout.trim()).toBe('widget.example.com/w1 created');
  });

  it('should get objects as a table and as JSON', async () => {
    const table = (await kubectl('get', 'configmaps', '-n', 'demo')).stdout;
    expect(table.split('\n')[0]).toMatch(/^NAME\s+AGE/);
    expect(table).toMatch(/^cfg\s/m);
    const json = JSON.parse((await kubectl('get', 'configmap', 'cfg', '-n', 'demo', '-o', 'json')).stdout);
    expect(json).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'demo', labels: { app: 'web' } },
      data: { greeting: 'hello' },
    });
    expect(json.metadata.resourceVersion).toMatch(/^\d+$/);
    const size = (await kubectl('get', 'wd', 'w1', '-n', 'demo', '-o', 'jsonpath={.spec.size}')).stdout;
    expect(size).toBe('3');
    const selected = (await kubectl('get', 'cm', '-A', '-l', 'app=web', '-o', 'name')).stdout;
    expect(selected.trim()).toBe('configmap/cfg');
  });

  it('should stream changes with get --watch', async () => {
    const child = spawn(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', 'configmaps', '-n', 'demo', '--watch', '-o', 'name'],
      { env: env() },
    );
    // A safety net: kubectl must never outlive the test.
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      await waitFor(() => out.includes('configmap/cfg'), 'the initial listing from kubectl');
      const core = server!.kubeConfig().makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'later' } } });
      await waitFor(() => out.includes('configmap/later'), 'the watched creation');
    } finally {
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    }
  });

  it('should apply (client-side and server-side) and delete', async () => {
    const file = join(dir, 'cm.yaml');
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: demo\ndata:\n  a: "1"\n');
    expect((await kubectl('apply', '-f', file)).stdout.trim()).toBe('configmap/applied created');
    expect((await kubectl('apply', '--server-side', '-f', file)).stdout.trim()).toBe('configmap/applied serverside-applied');
    expect((await kubectl('delete', '-f', file)).stdout.trim()).toBe('configmap "applied" deleted');
  });
});

describe('kubectl and client-node against a server with --token auto --tls', () => {
  let dir: string;
  let kubeconfig: string;
  let server: ApiServer | undefined;
  const kubectl = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        KUBECTL,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 20_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`kubectl ${args.join(' ')} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });

  beforeAll(async () => {
    await access(KUBECTL, constants.X_OK).catch(() => {
      throw new Error(`kubectl is required at ${KUBECTL} for these tests (install it, e.g. apt-get install kubectl)`);
    });
    dir = await mkdtemp(join(tmpdir(), 'rxkrt-tls-'));
    kubeconfig = join(dir, 'kubeconfig');
    const out = capture();
    server = (await runCli(['--port', '0', '--kubeconfig', kubeconfig, '--token', 'auto', '--tls'], out.io))!;
    expect(out.err.join('')).toContain('requests need its bearer token (in the kubeconfig)');
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('should write an https kubeconfig that trusts the server certificate and carries a random token', async () => {
    expect(server!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const text = await readFile(kubeconfig, 'utf8');
    expect(text).toContain(`certificate-authority-data: ${Buffer.from(server!.caCertPem!).toString('base64')}`);
    expect(text).not.toContain('insecure-skip-tls-verify');
    expect(text).toMatch(/token: "[A-Za-z0-9_-]{43}"/);
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);
  });

  it('should serve kubectl through the written kubeconfig', async () => {
    expect(await kubectl('get', 'namespaces', '-o', 'name')).toContain('namespace/default');
    // `kubectl create namespace` sends protobuf, which the server does not decode: a manifest goes as JSON.
    const manifest = join(dir, 'ns.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tls-demo\n');
    await kubectl('create', '-f', manifest);
    expect(await kubectl('get', 'namespace', 'tls-demo', '-o', 'jsonpath={.metadata.name}')).toBe('tls-demo');
  });

  it('should serve client-node through a KubeConfig loaded from the written file', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'over-tls' } } });
    expect((await core.readNamespacedConfigMap({ namespace: 'default', name: 'over-tls' })).metadata!.name).toBe('over-tls');
  });

  it('should refuse a request without the token, or with another, with 401 Unauthorized', async () => {
    const ca = server!.caCertPem!;
    const url = `${server!.url}/api/v1/namespaces`;
    for (const headers of [{}, { Authorization: 'Bearer wrong' }, { Authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const res = await nodeRequest(url, { headers, ca });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    const token = /token: "([^"]+)"/.exec(await readFile(kubeconfig, 'utf8'))![1]!;
    expect((await nodeRequest(url, { headers: { Authorization: `Bearer ${token}` }, ca })).status).toBe(200);
  });

  it('should refuse clients that do not trust its certificate', async () => {
    await expect(nodeRequest(`${server!.url}/version`)).rejects.toThrow(/self[- ]signed certificate/);
  });
});
