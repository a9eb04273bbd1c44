import { describe, it, expect } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { newStatusWriter, type Gate } from '../../src/kube/index.js';
import type { ApiServer } from '../../src/apiserver/index.js';
import { until } from '../helpers/kube.js';
import { statusWriterRig } from './statusWriter.fixtures.js';

/** A gate whose owned keys a test sets by hand. */
class ManualGate implements Gate {
  readonly owned = new Set<string>();
  readonly changes$ = new Subject<void>();
  owns(key: string): boolean {
    return this.owned.has(key);
  }
  set(...keys: string[]): void {
    this.owned.clear();
    for (const k of keys) this.owned.add(k);
    this.changes$.next();
  }
}

describe('newStatusWriter with a gate', () => {
  const { writers, setup: setupSizes, resize, statusesOf, patches } = statusWriterRig();
  /** A server with the Gadget CRD and one gadget per name, sized 1, 2, … in order. */
  const setup = (names: string[]) => setupSizes(Object.fromEntries(names.map((name, i) => [name, i + 1])));

  // A retry waits a minute here, so a test can change ownership while it is pending.
  function gatedWriter(kc: KubeConfig, gate: Gate) {
    const { gadgets, statuses } = statusesOf(kc);
    const writer = newStatusWriter(kc, statuses, { gate, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    writers.push(writer);
    return { gadgets, writer };
  }

  const written = (server: ApiServer): string[] =>
    patches(server)
      .map((p) => /gadgets\/([^/]+)\/status/.exec(p)?.[1] ?? p)
      .sort();

  it('should write only the keys the gate owns', async () => {
    const { server, kc } = await setup(['a', 'b', 'c']);
    const gate = new ManualGate();
    gate.set('default/a', 'default/c');
    const { gadgets, writer } = gatedWriter(kc, gate);
    await gadgets.waitUntilSynced();
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(written(server)).toEqual(['a', 'c']);
    expect(writer.stats.notOwned).toBeGreaterThan(0);
  });

  it('should pick up a newly owned key at once, and leave a lost one unwritten', async () => {
    const { server, kc, api } = await setup(['a', 'b']);
    const gate = new ManualGate();
    const { gadgets, writer } = gatedWriter(kc, gate);
    await gadgets.waitUntilSynced();
    await writer.idle();
    expect(written(server)).toEqual([]);
    gate.set('default/b');
    await until(
      () => writer.stats.writes === 1,
      () => JSON.stringify(writer.stats),
    );
    await writer.idle();
    expect(written(server)).toEqual(['b']);
    // Lose b, then change it: the change must not be written by this replica.
    gate.set('default/a');
    await until(
      () => writer.stats.writes === 2,
      () => JSON.stringify(writer.stats),
    );
    await resize(api, 'b', 9);
    await until(() => gadgets.getKey('default/b')?.spec.size === 9, 'b resized');
    await writer.idle();
    expect(written(server)).toEqual(['a', 'b']);
  });

  it('should drop a queued retry for a key it loses', async () => {
    const { server, kc } = await setup(['a']);
    const gate = new ManualGate();
    gate.set('default/a');
    server.failNext(1, 503, { match: (m, p) => m === 'PATCH' && p.includes('/status') });
    const { writer } = gatedWriter(kc, gate);
    await until(
      () => writer.stats.retries === 1,
      () => JSON.stringify(writer.stats),
    );
    gate.set();
    await writer.idle();
    expect(writer.stats.writes).toBe(0);
    expect(written(server)).toEqual(['a']);
  });
});
