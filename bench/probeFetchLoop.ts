// `bench:probe -- fetch-loop`: what a pod's fetch of its services costs outside any build, beside the
// hand-written controller's lookup of the same services: each of 1000 pods looked up in turn, the two taking
// turns round by round in one process, warm. Set beside `build-layers`, it tells the fetch's own steps from
// what the fetch costs inside a build, where every pod, entry and record is fresh.
import { filterSelectsNonEmpty, newNamespaceIndex, newStaticCollection } from '../src/index.js';
import { internal } from '../src/engine/internalCollection.js';
import { buildIndexedDependency } from '../src/fetch/buildDependency.js';
import { listMatching } from '../src/fetch/listMatching.js';
import { IpAllocator, krtPods, krtServices, type Service } from './fixtures.js';
import { median } from './harness.js';
import { StrongHandWrittenController } from './strongHandWritten.js';

export function fetchLoop(): void {
  const pods = krtPods(1000, new IpAllocator());
  const services = krtServices();
  // The strong controller with no pods: its service index, looked up as its reconcile looks it up.
  const controller = StrongHandWrittenController.build([], services, () => {});
  const svcC = newStaticCollection<Service>(services, { name: 'Services' });
  newNamespaceIndex(svcC);
  // The handle `Index.fetch` passes on: asking for the name again returns the namespace index's own.
  const handle = internal(svcC, 'fetch-loop').indexFor('namespace', () => []);
  let found = 0;
  const hand = (): void => {
    for (const p of pods) found += controller.serviceNamesOf(p).length;
  };
  // Index.fetch without the transform context: a new dependency record per pod, as in a build, and its lookup.
  const rxkrt = (): void => {
    for (const p of pods) {
      const dep = buildIndexedDependency(handle.source, handle, p.metadata.namespace, [filterSelectsNonEmpty(p.metadata.labels)]);
      found += (listMatching(dep) as Service[]).map((s) => s.metadata.name).length;
    }
  };
  const times: number[][] = [[], []];
  for (let r = 0; r < 3000; r++) {
    [hand, rxkrt].forEach((run, k) => {
      const t0 = performance.now();
      run();
      if (r >= 500) times[k]!.push((performance.now() - t0) * 1000);
    });
  }
  if (found !== 2 * 3000 * 1000) throw new Error(`fetch-loop found ${found} services, not one per pod and lookup`);
  const [h, x] = times.map(median) as [number, number];
  console.log(
    `1000 pods' services, warm, turn about: the hand-written lookup ${h.toFixed(0)} µs, ` +
      `rxkrt's fetch without a context (a new record each, then its lookup) ${x.toFixed(0)} µs; ${(x / h).toFixed(2)}×`,
  );
}
