import { describe, it, expect } from '@jest/globals';
import { canonical, canonicalSet } from '../../bench/canonical.js';
import { StrongHandWrittenController } from '../../bench/strongHandWritten.js';
import { floorWorkloadOf } from '../../bench/engineFloor.js';
import { LeanDerived, LeanServiceIndex, LeanSource, type LeanContext } from '../../bench/leanEngine.js';
import { leanBatch, leanFailures, type LeanEvent } from '../../bench/leanTransactions.js';
import type { Pod, Service, Workload } from '../../bench/fixtures.js';
import { pod, rng, service } from '../helpers/workloadData.js';

/** B1's graph on the lean engine over small random data, with a handler recording each event. */
function graph(pods: readonly Pod[], services: readonly Service[], transform?: (ctx: LeanContext, p: Pod) => Workload | undefined) {
  const abort = new AbortController();
  const source = new LeanSource<Pod>(pods, 'Pods', abort.signal);
  const index = new LeanServiceIndex(new LeanSource<Service>(services, 'Services', abort.signal));
  const workloads = new LeanDerived<Pod, Workload>(source, transform ?? floorWorkloadOf(index), 'Workloads', abort.signal);
  const events: string[] = [];
  workloads.register((e: LeanEvent<Workload>) => events.push(canonical(e)));
  return { abort, source, index, workloads, events };
}

describe('the lean engine (B1 evidence)', () => {
  it.each([1, 2, 3])('should emit what the strong controller emits for pod updates, in batches and one at a time (seed %i)', (seed) => {
    const r = rng(seed);
    const services = Array.from({ length: 12 }, (_, i) => service(r, i));
    const pods = Array.from({ length: 40 }, (_, i) => pod(r, i));
    const g = graph(pods, services);
    const strongEvents: string[] = [];
    const strong = StrongHandWrittenController.build(pods, services, (e) => strongEvents.push(canonical(e)));
    expect(g.events).toEqual(strongEvents);
    // Groups of updates, each either one batch (against one drain) or one transaction per update (against a
    // drain per update); a key written twice in one batch leaves as one event, from its value before it.
    let pending: Pod[] = [];
    let each = false;
    // One run per input at the build, then one per key a transaction wrote.
    let runs = pods.length;
    for (let step = 0; step < 2000; step++) {
      const i = r(40);
      const next = pod(r, i);
      strong.podEvent(`ns-${i % 2}/pod-${i}`, next);
      if (each) {
        g.source.updateObject(next);
        strong.drain();
        runs++;
      } else {
        pending.push(next);
      }
      if (r(8) === 0) {
        leanBatch(() => {
          for (const p of pending) g.source.updateObject(p);
        });
        strong.drain();
        runs += new Set(pending.map((p) => p.metadata.name)).size;
        expect(pending.every((p) => Object.isFrozen(p))).toBe(true);
        pending = [];
        expect(g.events).toEqual(strongEvents);
        expect(canonicalSet(g.workloads.values())).toBe(canonicalSet(strong.workloads.values()));
        for (const w of g.workloads.values()) expect(Object.isFrozen(w)).toBe(true);
        each = r(2) === 0;
      }
    }
    expect(g.workloads.counters.recomputations).toBe(runs);
  });

  it('should call handlers only once the transaction has committed, one batch per transaction', () => {
    const r = rng(4);
    const g = graph([pod(r, 1), pod(r, 2)], []);
    const seen: Array<[number, number]> = [];
    g.workloads.register(() => seen.push([g.source.state.size, [...g.workloads.values()].length]));
    seen.length = 0;
    const batchesBefore = g.workloads.counters.batches;
    leanBatch(() => {
      g.source.updateObject({ ...pod(r, 3), status: { phase: 'Running', podIP: '10.9.0.3' } });
      g.source.updateObject({ ...pod(r, 4), status: { phase: 'Running', podIP: '10.9.0.4' } });
      // Nothing is delivered while the batch is open.
      expect(seen).toEqual([]);
    });
    expect(g.workloads.counters.batches).toBe(batchesBefore + 1);
    // Each handler call saw both pods and both of their Workloads.
    expect(seen.length).toBe(2);
    for (const [pods, workloads] of seen) {
      expect(pods).toBe(4);
      expect(workloads).toBe([...g.workloads.values()].length);
    }
  });

  it('should run a write made by a handler as the next transaction', () => {
    const r = rng(5);
    const g = graph([], []);
    const order: string[] = [];
    g.workloads.register((e) => {
      order.push(`${e.type} ${e.new?.metadata.name ?? ''}`);
      if (e.new?.metadata.name === 'pod-1') {
        g.source.updateObject({ ...pod(r, 2), status: { phase: 'Running', podIP: '10.9.0.2' } });
        // Deferred: the write has not happened yet.
        expect(g.source.state.has('ns-0/pod-2')).toBe(false);
      }
    });
    g.source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.1' } });
    expect(order).toEqual(['add pod-1', 'add pod-2']);
  });

  it("should keep an input's last good output when its transform throws, name the input, and recover", () => {
    const r = rng(6);
    let broken = false;
    const g = graph([{ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.1' } }], [], (_ctx, p) => {
      if (broken) throw new Error('boom');
      return { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip: p.status.podIP!, serviceNames: [] };
    });
    broken = true;
    g.source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.9' } });
    expect([...g.workloads.values()].map((w) => w.ip)).toEqual(['10.9.0.1']);
    expect(g.workloads.errors()).toEqual([['ns-1/pod-1', 'collection "Workloads", input "ns-1/pod-1": transform failed: boom']]);
    expect(g.workloads.counters.errors).toBe(1);
    broken = false;
    g.source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.8' } });
    expect([...g.workloads.values()].map((w) => w.ip)).toEqual(['10.9.0.8']);
    expect(g.workloads.errors()).toEqual([]);
  });

  it('should report a throwing handler and keep delivering to it', () => {
    const r = rng(7);
    const g = graph([], []);
    let calls = 0;
    g.workloads.register(() => {
      calls++;
      throw new Error('handler broke');
    });
    const failuresBefore = leanFailures().length;
    g.source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.1' } });
    g.source.updateObject({ ...pod(r, 2), status: { phase: 'Running', podIP: '10.9.0.2' } });
    expect(calls).toBe(2);
    expect(
      leanFailures()
        .slice(failuresBefore)
        .map((e) => (e as Error).message),
    ).toEqual(['handler broke', 'handler broke']);
    expect(g.events.length).toBe(2);
  });

  it('should refuse an object without a name, naming the collection, and an output named unlike its input', () => {
    const g = graph([], [], (_ctx, p) => ({
      metadata: { name: `${p.metadata.name}-x`, namespace: p.metadata.namespace },
      ip: '',
      serviceNames: [],
    }));
    expect(() => g.source.updateObject({ metadata: { name: '', namespace: 'ns' } } as Pod)).toThrow(
      /collection Pods: object without metadata.name/,
    );
    g.source.updateObject(pod(rng(8), 1));
    expect([...g.workloads.values()]).toEqual([]);
    expect(g.workloads.errors()[0]![1]).toMatch(/input "ns-1\/pod-1": output .* is not named like its input/);
  });

  it('should retry a run that read a collection ranked at or above it, after that one commits', () => {
    /** A service source ranked above the Workloads, as one derived from something further up would be. */
    class HighServices extends LeanSource<Service> {
      override readonly rank = 3;
    }
    const r = rng(9);
    const abort = new AbortController();
    const source = new LeanSource<Pod>([], 'Pods', abort.signal);
    const svc = { metadata: { name: 'svc-0', namespace: 'ns-1' }, spec: { selector: { app: 'a' } } };
    const index = new LeanServiceIndex(new HighServices([svc], 'Services', abort.signal));
    const workloads = new LeanDerived<Pod, Workload>(source, floorWorkloadOf(index), 'Workloads', abort.signal);
    const batches: number[] = [];
    workloads.register(() => batches.push(workloads.counters.batches));
    source.updateObject({
      ...pod(r, 1),
      metadata: { name: 'pod-1', namespace: 'ns-1', labels: { app: 'a' } },
      status: { phase: 'Running', podIP: '10.9.0.1' },
    });
    expect(workloads.rank).toBe(4);
    expect([...workloads.values()].map((w) => w.serviceNames)).toEqual([['svc-0']]);
    // The abandoned run was rerun in the same transaction: one batch, one event.
    expect(batches).toEqual([1]);
  });

  it('should stop on its stop signal: the derived collection lets go of its source, a stopped source refuses writes', () => {
    const r = rng(10);
    const sourceStop = new AbortController();
    const workloadsStop = new AbortController();
    const source = new LeanSource<Pod>([], 'Pods', sourceStop.signal);
    const index = new LeanServiceIndex(new LeanSource<Service>([], 'Services', sourceStop.signal));
    const workloads = new LeanDerived<Pod, Workload>(source, floorWorkloadOf(index), 'Workloads', workloadsStop.signal);
    const seen: string[] = [];
    workloads.register((e) => seen.push(e.type));
    source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.1' } });
    expect(seen).toEqual(['add']);
    workloadsStop.abort();
    expect(workloads.isDisposed()).toBe(true);
    expect(source.dependents).toEqual([]);
    // The source still takes writes; the stopped collection neither recomputes nor delivers.
    source.updateObject({ ...pod(r, 1), status: { phase: 'Running', podIP: '10.9.0.2' } });
    expect(source.writes).toBe(2);
    expect(seen).toEqual(['add']);
    expect([...workloads.values()].map((w) => w.ip)).toEqual(['10.9.0.1']);
    sourceStop.abort();
    expect(() => source.updateObject(pod(r, 2))).toThrow(/updateObject on "Pods": the collection was stopped/);
    expect(source.writes).toBe(2);
  });
});
