// Runs kubectl 1.32 (on the machine) against an embedded API server: a kubeconfig in a temp dir, a timeout per call.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../../../src/apiserver/index.js';

/** What one kubectl call ended with. */
export interface KubectlResult {
  stdout: string;
  stderr: string;
  /** The exit code; -1 when kubectl was killed by the timeout. */
  code: number;
}

/** A `kubectl … --watch` left running: its output so far, and a way to stop it. */
export interface KubectlWatch {
  /** Resolves once the output holds `text`; rejects after `timeoutMs`. */
  waitFor(text: string, timeoutMs?: number): Promise<string>;
  /** Stops kubectl (SIGTERM) and resolves once it has exited, with its exit signal or code. */
  stop(): Promise<string>;
}

/** A running server with a kubeconfig file for it. */
export interface KubectlSession {
  readonly server: ApiServer;
  /** The temp dir holding the kubeconfig, kubectl's discovery cache and any files a test writes. */
  readonly dir: string;
  kubectl(args: readonly string[], timeoutMs?: number): Promise<KubectlResult>;
  /** Like {@link kubectl}, but fails the test with kubectl's stderr unless it exits 0. */
  ok(args: readonly string[]): Promise<string>;
  watch(args: readonly string[]): KubectlWatch;
  close(): Promise<void>;
}

/** Starts a server and writes its kubeconfig (namespace `default`) to a temp file. */
export async function startKubectlSession(): Promise<KubectlSession> {
  const server = await startApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'rxkrt-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfigYaml(), { mode: 0o600 });
  // Each server has its own port, so discovery caches go to the temp dir rather than ~/.kube/cache.
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache')];
  const kubectl = (args: readonly string[], timeoutMs = 15_000) =>
    new Promise<KubectlResult>((resolve) => {
      execFile('kubectl', [...base, ...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ stdout, stderr, code });
      });
    });
  const children = new Set<ReturnType<typeof spawn>>();
  return {
    server,
    dir,
    kubectl,
    async ok(args) {
      const r = await kubectl(args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
    watch(args) {
      const child = spawn('kubectl', [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let output = '';
      const waiters = new Set<() => void>();
      const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        for (const w of waiters) w();
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      return {
        waitFor: (text, timeoutMs = 10_000) =>
          new Promise((resolve, reject) => {
            const check = () => {
              if (!output.includes(text)) return;
              waiters.delete(check);
              clearTimeout(timer);
              resolve(output);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              reject(new Error(`kubectl ${args.join(' ')} did not print ${JSON.stringify(text)}; it printed: ${output}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          }),
        stop: () => {
          child.kill();
          children.delete(child);
          return exited;
        },
      };
    },
    async close() {
      for (const child of children) child.kill();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
