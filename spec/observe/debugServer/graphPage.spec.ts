import { describe, it, expect, afterAll } from '@jest/globals';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { runCli } from '../../../examples/demo/cli.js';
import { until } from '../../helpers/kube.js';

// The graph page in a real browser (Debian's chromium, driven by playwright-core) against the running demo.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = join(root, 'test-output');

describe('the /debug/graph page in Chromium, over the demo', () => {
  let browser: Browser | undefined;
  const interrupt = new AbortController();
  let demo: Promise<number> | undefined;
  afterAll(async () => {
    await browser?.close();
    interrupt.abort();
    await demo;
  });

  it('should draw the collections with their counts, show a dump on click, and follow changes live', async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set CHROMIUM_PATH`);
    const lines: string[] = [];
    const output = { progress: () => {}, log: (l: string) => lines.push(l) };
    const sink = { write: () => true } as unknown as NodeJS.WritableStream;
    demo = runCli(
      ['--duration', '0', '--debug-port', '0', '--pods', '60', '--namespaces', '3', '--services', '8', '--policies', '4', '--rate', '100'],
      {
        stdout: sink,
        stderr: sink,
        output,
        interrupt: interrupt.signal,
      },
    );
    await until(
      () => lines.some((l) => l.startsWith('synced in')),
      () => `the demo to sync; it said: ${lines.join(' / ')}`,
      30_000,
    );
    const url = /debug server on (http:\/\/[^:]+:\d+)/.exec(lines[0] ?? '')?.[1];
    expect(url).toBeDefined();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    await page.goto(`${url!}/debug/graph`);

    const workloads = page.locator('g.node[data-name="Workloads"]');
    await workloads.waitFor();
    for (const name of ['Namespaces', 'Pods', 'Services', 'AccessPolicies', 'ServiceEndpoints']) {
      await page.locator(`g.node[data-name="${name}"]`).first().waitFor();
    }
    expect(Number(await page.locator('g.node[data-name="Services"] .objects').getAttribute('data-objects'))).toBe(8);
    expect(await page.locator('path.edge').count()).toBeGreaterThan(4);

    await workloads.click();
    // The panel fills in once the page has fetched the collection: wait for it rather than read it at once.
    await page.locator('#detail-name', { hasText: /^Workloads$/ }).waitFor();
    await page.locator('#detail-dump', { hasText: '"outputs"' }).waitFor();

    // Churn keeps rewriting pods: the page must show the workloads being recomputed without a reload.
    const runs = async (): Promise<string> => (await workloads.locator('.state').textContent()) ?? '';
    const before = await runs();
    await until(async () => (await runs()) !== before, `the Workloads node to change from ${JSON.stringify(before)}`, 15_000);

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'graph-page.png'), fullPage: true });
    interrupt.abort();
    await expect(demo).resolves.toBe(0);
  });
});
