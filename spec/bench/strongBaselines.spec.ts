import { describe, it, expect } from '@jest/globals';
import { assertSameOutputs, canonical, canonicalSet } from '../../bench/canonical.js';
import { HandWrittenController } from '../../bench/handWritten.js';
import { StrongHandWrittenController } from '../../bench/strongHandWritten.js';
import { ContractFloorController } from '../../bench/contractFloor.js';
import { FloorDerived, FloorServiceIndex, FloorSource, floorWorkloadOf, type FloorEvent } from '../../bench/engineFloor.js';
import { StrongHandPolicies, WeakHandPolicies } from '../../bench/b3HandPolicies.js';
import { podKey, type Pod, type Service, type Workload } from '../../bench/fixtures.js';
import { labels, pod, rng, service } from '../helpers/workloadData.js';
import type { Policy } from '../../bench/b3Data.js';

describe('canonical (bench output checks)', () => {
  it('should sort keys and arrays, and drop undefined fields', () => {
    expect(canonical({ b: [3, 1, 2], a: { y: 'x', x: undefined } })).toBe('{"a":{"y":"x"},"b":[1,2,3]}');
    expect(canonicalSet([{ k: 2 }, { k: 1 }])).toBe('{"k":1}\n{"k":2}');
  });

  it('should name the first differing line', () => {
    expect(() => assertSameOutputs('x', 'a\nb', 'a\nc')).toThrow(/line 1:\n {2}got {2}b\n {2}want c/);
    expect(() => assertSameOutputs('x', 'a', 'a')).not.toThrow();
  });
});

describe('the strong hand-written Workload controller', () => {
  it.each([1, 2, 3, 4, 5])('should emit what the scanning controller emits, in the same order (seed %i)', (seed) => {
    const r = rng(seed);
    const weakEvents: string[] = [];
    const strongEvents: string[] = [];
    const weak = new HandWrittenController((e) => weakEvents.push(canonical(e)));
    const strong = new StrongHandWrittenController((e) => strongEvents.push(canonical(e)));
    for (let step = 0; step < 3000; step++) {
      const what = r(10);
      if (what < 6) {
        const i = r(40);
        const p = r(8) === 0 ? undefined : pod(r, i);
        for (const c of [weak, strong]) c.podEvent(`ns-${i % 2}/pod-${i}`, p);
      } else if (what < 9) {
        const i = r(12);
        const s = r(6) === 0 ? undefined : service(r, i);
        for (const c of [weak, strong]) c.serviceEvent(`ns-${i % 2}/svc-${i}`, s);
      } else {
        weak.drain();
        strong.drain();
        expect(strongEvents).toEqual(weakEvents);
        expect([...strong.workloads.entries()].sort()).toEqual([...weak.workloads.entries()].sort());
      }
    }
  });
});

describe('the contract floor (B1 evidence)', () => {
  it.each([1, 2, 3])(
    'should emit what the strong controller emits for pod updates, freezing what it stores and hands out (seed %i)',
    (seed) => {
      const r = rng(seed);
      const services = Array.from({ length: 12 }, (_, i) => service(r, i));
      const pods = Array.from({ length: 40 }, (_, i) => pod(r, i));
      const floorEvents: string[] = [];
      const strongEvents: string[] = [];
      const floor = ContractFloorController.build(pods, services, (e) => floorEvents.push(canonical(e)));
      const strong = StrongHandWrittenController.build(pods, services, (e) => strongEvents.push(canonical(e)));
      expect(floorEvents).toEqual(strongEvents);
      for (let step = 0; step < 2000; step++) {
        const i = r(40);
        const next = pod(r, i);
        floor.podEvent(`ns-${i % 2}/pod-${i}`, next);
        strong.podEvent(`ns-${i % 2}/pod-${i}`, next);
        if (r(8) === 0) {
          floor.drain();
          strong.drain();
          expect(floorEvents).toEqual(strongEvents);
          expect([...floor.workloads.entries()].sort()).toEqual([...strong.workloads.entries()].sort());
          expect(Object.isFrozen(next)).toBe(true);
          for (const w of floor.workloads.values()) expect(Object.isFrozen(w)).toBe(true);
        }
      }
      expect(() => floor.serviceEvent()).toThrow(/pod updates only/);
    },
  );
});

describe('the engine floor (B1 evidence)', () => {
  it.each([1, 2, 3])(
    'should emit what the strong controller emits for pod updates, one batch per write, frozen inputs and outputs (seed %i)',
    (seed) => {
      const r = rng(seed);
      const services = Array.from({ length: 12 }, (_, i) => service(r, i));
      const pods = Array.from({ length: 40 }, (_, i) => pod(r, i));
      const floorEvents: string[] = [];
      const strongEvents: string[] = [];
      const source = new FloorSource<Pod>(pods, podKey);
      const index = new FloorServiceIndex(new FloorSource<Service>(services, (s) => `${s.metadata.namespace}/${s.metadata.name}`));
      const workloads = new FloorDerived<Pod, Workload>(source, floorWorkloadOf(index));
      workloads.register((e: FloorEvent<Workload>) => floorEvents.push(canonical(e)));
      const strong = StrongHandWrittenController.build(pods, services, (e) => strongEvents.push(canonical(e)));
      expect(floorEvents).toEqual(strongEvents);
      let pending: Pod[] = [];
      for (let step = 0; step < 2000; step++) {
        const i = r(40);
        const next = pod(r, i);
        pending.push(next);
        strong.podEvent(`ns-${i % 2}/pod-${i}`, next);
        if (r(8) === 0) {
          source.write(pending);
          strong.drain();
          expect(pending.every((p) => Object.isFrozen(p))).toBe(true);
          pending = [];
          expect(floorEvents).toEqual(strongEvents);
          expect(canonicalSet(workloads.values())).toBe(canonicalSet(strong.workloads.values()));
          for (const w of workloads.values()) expect(Object.isFrozen(w)).toBe(true);
        }
      }
    },
  );

  it('should refuse an output not keyed like its input', () => {
    const source = new FloorSource<Pod>([], podKey);
    const renamed = new FloorDerived<Pod, Workload>(source, (_ctx, p) => ({
      metadata: { name: `${p.metadata.name}-x`, namespace: p.metadata.namespace },
      ip: '',
      serviceNames: [],
    }));
    expect(() => source.write([pod(rng(9), 1)])).toThrow(/not keyed like input ns-1\/pod-1/);
    expect([...renamed.values()]).toEqual([]);
  });
});

describe('the strong hand-written policy controller (B3)', () => {
  // The weak controller resolves a policy only once a pod event matched it; the strong one (as rxkrt) resolves
  // every policy, those that select nothing to no addresses.
  it.each([1, 2, 3])('should resolve the policies as the controller that tests every policy does (seed %i)', (seed) => {
    const r = rng(seed);
    const policies: Policy[] = Array.from({ length: 12 }, (_, i) => ({
      metadata: { name: `policy-${i}`, namespace: `ns-${i % 2}` },
      spec: { selector: labels(r) },
    }));
    const pods = Array.from({ length: 30 }, (_, i) => {
      const p = pod(r, i);
      return p.status.podIP === undefined ? { ...p, status: { phase: 'Running', podIP: '10.1.0.1' } } : p;
    });
    const weak = new WeakHandPolicies(pods, policies);
    const strong = new StrongHandPolicies(pods, policies);
    for (let step = 0; step < 2000; step++) {
      const i = r(30);
      const prev = pods[i]!;
      // A new IP, or new labels, or both; pods are never deleted in B3.
      const next: Pod = {
        metadata: r(2) === 0 ? prev.metadata : { ...prev.metadata, labels: labels(r) },
        spec: prev.spec,
        status: { phase: 'Running', podIP: `10.0.0.${r(250)}` },
      };
      pods[i] = next;
      weak.podEvent(next);
      strong.podEvent(next);
      if (r(10) === 0) {
        weak.drain();
        strong.drain();
        const resolvedByWeak = [...strong.resolved].filter(([k, v]) => weak.resolved.has(k) || v.addresses.length > 0).map(([, v]) => v);
        expect(canonicalSet(resolvedByWeak)).toBe(canonicalSet(weak.resolved.values()));
      }
    }
  });
});
