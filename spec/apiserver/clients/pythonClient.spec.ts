import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';

// Debian's python3-kubernetes lives in the system Python; a pyenv `python3` earlier on PATH lacks it.
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'python_client_steps.py');

interface StepResult {
  step: string;
  ok: boolean;
  detail: unknown;
}

/** Runs the script against `kubeconfig` and returns its steps by name. */
async function runSteps(kubeconfig: string): Promise<Map<string, StepResult>> {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(PYTHON, [SCRIPT, kubeconfig, 'default'], { encoding: 'utf8', timeout: 90_000 }, (error, out, err) => {
      if (error) reject(new Error(`${PYTHON} ${SCRIPT} failed: ${error.message}\n${out}\n${err}`));
      else resolve(out);
    });
  });
  const steps = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StepResult);
  return new Map(steps.map((s) => [s.step, s]));
}

describe('the official Python client (python3-kubernetes) against the embedded server', () => {
  let server: ApiServer;
  let dir: string;
  let steps: Map<string, StepResult>;
  beforeAll(async () => {
    server = await startApiServer();
    dir = await mkdtemp(join(tmpdir(), 'rxkrt-python-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfigYaml(), { mode: 0o600 });
    steps = await runSteps(kubeconfig);
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  // Each expectation names the step, so a failure shows the client's own error next to it.
  const expectStep = (name: string, detail: unknown): void => {
    expect([name, steps.get(name)]).toEqual([name, { step: name, ok: true, detail }]);
  };

  it('should list, create, get and patch core kinds', () => {
    expectStep('list-namespaces', ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expectStep('create-configmap', 'py-cm');
    expectStep('get-configmap', { a: '1' });
    expectStep('patch-configmap', { a: '1', b: '2' });
  });

  it('should start a watch from watch=True and see ADDED then MODIFIED', () => {
    expectStep('watch-added-modified', [
      ['ADDED', '1'],
      ['MODIFIED', '2'],
    ]);
  });

  it('should server-side apply a JSON body, refuse a conflicting YAML one without force and take it with force=True', () => {
    expectStep('apply-json', { a: 'json' });
    expectStep('apply-yaml-conflict', 409);
    expectStep('apply-yaml-force', { a: 'yaml', b: 'block' });
  });

  it('should merge a Service port by port in a strategic merge patch', () => {
    expectStep('service-port-merge', [
      ['https', 443],
      ['http', 80],
    ]);
  });

  it('should create and read a Deployment through AppsV1Api', () => {
    expectStep('create-deployment', ['py-web', 2, 'nginx']);
  });

  it('should delete, and keep a Foreground delete marked with its finalizer (no garbage collector runs)', () => {
    expectStep('delete-configmap', 404);
    expectStep('delete-foreground', [['foregroundDeletion'], true]);
  });

  it('should have run every step of the script', () => {
    expect([...steps.keys()]).toEqual([
      'list-namespaces',
      'create-configmap',
      'get-configmap',
      'patch-configmap',
      'watch-added-modified',
      'apply-json',
      'apply-yaml-conflict',
      'apply-yaml-force',
      'service-port-merge',
      'create-deployment',
      'delete-configmap',
      'delete-foreground',
    ]);
  });
});
