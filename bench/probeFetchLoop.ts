// `bench:probe -- fetch-loop`: what a pod's fetch of its services costs outside any build, beside the
// hand-written controller's lookup of the same services: each of 1000 pods looked up in turn, the two taking
// turns round by round in one process, warm. Set beside `build-layers`, it tells the fetch's own steps from
// what the fetch costs inside a build, where every pod, entry and record is fresh.
import { filterSelectsNonEmpty, newNamespaceIndex, newStaticCollection } from '../src/index.js';
import { internal } from '../src/engine/internalCollection.js';
import { buildIndexedDependency } from '../src/fetch/buildDependency.js';
import { listMatching } from '../src/fetch/listMatching.js';
import { IpAllocator, krtPods, krtServices, selects, type Service } from './fixtures.js';
import { median } from './harness.js';
import { anchorOf } from './strongHandWritten.js';

/** namespace → anchor label → its value → the services filed there (the strong controller's index). */
type Anchors = Map<string, Map<string, Map<string, Service[]>>>;

function fileAnchors(services: readonly Service[]): Anchors {
  const anchors: Anchors = new Map();
  for (const s of services) {
    const anchor = anchorOf(s.spec.selector);
    if (anchor === undefined) continue;
    let ns = anchors.get(s.metadata.namespace);
    if (ns === undefined) anchors.set(s.metadata.namespace, (ns = new Map()));
    let byValue = ns.get(anchor);
    if (byValue === undefined) ns.set(anchor, (byValue = new Map()));
    const value = s.spec.selector[anchor]!;
    let bucket = byValue.get(value);
    if (bucket === undefined) byValue.set(value, (bucket = []));
    bucket.push(s);
  }
  return anchors;
}

export function fetchLoop(): void {
  const pods = krtPods(1000, new IpAllocator());
  const services = krtServices();
  const anchors = fileAnchors(services);
  const svcC = newStaticCollection<Service>(services, { name: 'Services' });
  newNamespaceIndex(svcC);
  // The handle `Index.fetch` passes on: asking for the name again returns the namespace index's own.
  const handle = internal(svcC, 'fetch-loop').indexFor('namespace', () => []);
  let found = 0;
  const hand = (): void => {
    for (const p of pods) {
      const labels = p.metadata.labels;
      const byLabel = anchors.get(p.metadata.namespace);
      const names: string[] = [];
      for (const k in labels) {
        const bucket = byLabel?.get(k)?.get(labels[k]!);
        if (bucket !== undefined) for (const s of bucket) if (selects(s.spec.selector, labels)) names.push(s.metadata.name);
      }
      found += names.length;
    }
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
