import { describe, it, expect } from '@jest/globals';
import { Writable } from 'node:stream';
import { runDemo } from '../../examples/demo/demo.js';
import { runCli } from '../../examples/demo/cli.js';
import { parseScrape, valueOf } from '../helpers/prometheus.js';

const METRICS = [
  'rxkrt_collection_objects',
  'rxkrt_collection_events_total',
  'rxkrt_collection_recomputations_total',
  'rxkrt_collection_transform_errors_total',
  'rxkrt_collection_synced',
  'rxkrt_handler_queue_depth',
  'rxkrt_transform_duration_seconds',
  'rxkrt_transactions_total',
  'rxkrt_transaction_duration_seconds',
  'rxkrt_informer_lists_total',
  'rxkrt_informer_relists_total',
  'rxkrt_informer_watch_restarts_total',
  'rxkrt_informer_events_total',
  'rxkrt_informer_errors_total',
  'rxkrt_status_writes_total',
  'rxkrt_status_queue_depth',
];

function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  return Object.assign(w, { text: () => chunks.join('') });
}

const quiet = { progress: () => {}, log: () => {} };

describe('demo (npm start)', () => {
  it('should run the registry through informers under churn and end equal to a from-scratch computation', async () => {
    const s = await runDemo(
      { duration: 2, writeStatus: false, seed: 7, rate: 200, shape: { namespaces: 4, pods: 80, services: 12, policies: 8 } },
      quiet,
    );
    expect(s.consistent).toBe(true);
    expect(s.mismatch).toBeUndefined();
    expect(s.churnOps).toBeGreaterThan(0);
    expect(s.eventsProcessed).toBeGreaterThan(0);
    expect(s.recomputations).toBeGreaterThan(0);
    expect(s.statusWrites).toBeGreaterThan(0);
    expect(s.policies).toBe(8);
    expect(s.errors).toBe(0);
  });

  it('should run read-only against a cluster given by --kubeconfig: no churn, no status writes, still consistent', async () => {
    const { startApiServer } = await import('../../src/testing/index.js');
    const { clientsFor, seedCluster, mulberry32 } = await import('../../examples/demo/cluster.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const server = await startApiServer();
    try {
      await seedCluster(clientsFor(server.kubeConfig()), { namespaces: 2, pods: 20, services: 4, policies: 3 }, mulberry32(3));
      const before = server.resourceVersion();
      const file = join(mkdtempSync(join(tmpdir(), 'rxkrt-kc-')), 'kubeconfig');
      writeFileSync(file, server.kubeconfigYaml());
      const s = await runDemo(
        {
          duration: 1,
          kubeconfig: file,
          writeStatus: false,
          seed: 1,
          rate: 200,
          shape: { namespaces: 2, pods: 20, services: 4, policies: 3 },
        },
        quiet,
      );
      expect(s.target).toBe(server.url);
      expect(s.churnOps).toBe(0);
      expect(s.statusWrites).toBe(0);
      expect(s.workloads).toBe(20);
      expect(s.consistent).toBe(true);
      // Read-only: nothing was written to the cluster.
      expect(server.resourceVersion()).toBe(before);
    } finally {
      await server.close();
    }
  });

  it('should run three sharded replicas, crash the busiest, fail over and end with zero double writes', async () => {
    const lines: string[] = [];
    const s = await runDemo(
      {
        duration: 8,
        writeStatus: false,
        seed: 3,
        rate: 100,
        shape: { namespaces: 4, pods: 60, services: 10, policies: 30 },
        replicas: 3,
        killOneAt: 1.5,
      },
      { progress: () => {}, log: (l) => lines.push(l) },
    );
    expect(s.consistent).toBe(true);
    expect(s.replicas).toBe(3);
    expect(s.doubleWrites).toBe(0);
    expect(Object.keys(s.writesByReplica).sort()).toEqual(['replica-0', 'replica-1', 'replica-2']);
    expect(Object.values(s.writesByReplica).filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect(s.failoverMs).not.toBeNull();
    // The killed replica ends with no keys; the two left hold all 30.
    expect(Object.values(s.sharesByReplica).sort((a, b) => a - b)[0]).toBe(0);
    expect(Object.values(s.sharesByReplica).reduce((a, b) => a + b, 0)).toBe(30);
    expect(lines.some((l) => l.startsWith('killing replica-'))).toBe(true);
  }, 60_000);

  it('should reject bad flags with a usage message and exit code 2', async () => {
    for (const argv of [
      ['--bogus'],
      ['--duration', 'soon'],
      ['--pods', '-3'],
      ['--write-status'],
      ['stray'],
      ['--debug-port', '70000'],
      ['--kill-one-at', '5'],
      ['--replicas', '3', '--kubeconfig', '/nonexistent'],
    ]) {
      const stdout = sink();
      const stderr = sink();
      expect(await runCli(argv, { stdout, stderr, output: quiet })).toBe(2);
      expect(stderr.text()).toContain('usage: npm start');
    }
  });

  it('should run until interrupted with --duration 0, serving its debug server, then settle and print the summary', async () => {
    const lines: string[] = [];
    const output = { progress: () => {}, log: (l: string) => lines.push(l) };
    const stdout = sink();
    const interrupt = new AbortController();
    const argv = [
      '--duration',
      '0',
      '--debug-port',
      '0',
      '--json',
      '--pods',
      '30',
      '--namespaces',
      '2',
      '--services',
      '4',
      '--policies',
      '3',
    ];
    const run = runCli(argv, { stdout, stderr: sink(), output, interrupt: interrupt.signal });
    // A failed expectation must still end the run: with --duration 0 it would otherwise never end.
    try {
      await checkRunningDemo(lines);
    } finally {
      interrupt.abort();
    }
    expect(await run).toBe(0);
    const summary = JSON.parse(stdout.text()) as { interrupted: boolean; consistent: boolean; churnOps: number };
    expect(summary).toMatchObject({ interrupted: true, consistent: true });
    expect(summary.churnOps).toBeGreaterThan(0);
    const url = /(http:\/\/[^:]+:\d+)/.exec(lines[0]!)![1]!;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  /** What a running demo serves: its debug server first, ready, with every metric live. */
  async function checkRunningDemo(lines: string[]): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!lines.some((l) => l.startsWith('synced in'))) {
      if (Date.now() > deadline) throw new Error(`the demo did not sync; it said ${JSON.stringify(lines)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(lines[0]).toMatch(/^debug server on http:\/\/127\.0\.0\.1:\d+/);
    const url = /(http:\/\/[^:]+:\d+)/.exec(lines[0]!)![1]!;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    // Every metric of the observability page, with live values from this run.
    const scrape = parseScrape(await (await fetch(`${url}/metrics`)).text());
    const names = new Set(scrape.map((x) => x.name.replace(/_(bucket|sum|count)$/, '')));
    for (const m of METRICS) expect([m, names.has(m)]).toEqual([m, true]);
    expect(valueOf(scrape, 'rxkrt_collection_objects', { collection: 'Workloads' })).toBeGreaterThan(0);
    expect(valueOf(scrape, 'rxkrt_informer_events_total', { resource: 'v1/Pod', type: 'update' })).toBeGreaterThan(0);
    expect(valueOf(scrape, 'rxkrt_status_writes_total', { collection: 'AccessPolicies/status', result: 'written' })).toBeGreaterThan(0);
  }

  it('should print usage for --help and exit 0', async () => {
    const stdout = sink();
    const stderr = sink();
    expect(await runCli(['--help'], { stdout, stderr, output: quiet })).toBe(0);
    expect(stdout.text()).toContain('--kubeconfig PATH');
  });
});
