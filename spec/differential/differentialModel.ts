// The differential test's world: a seeded PRNG, the source objects it makes (pods, services, config maps),
// and the shapes that tie each derived collection to the plain function that says what it must hold.
import type { Collection, StaticCollection, StaticSingleton } from '../../src/index.js';
import { seededRandom } from '../../src/testing/index.js';

// ---- a seeded PRNG --------------------------------------------------------------------------------------

export class Random {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  float(): number {
    return this.next();
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// ---- the model ------------------------------------------------------------------------------------------

export type Labels = Record<string, string>;
export interface Pod {
  metadata: { name: string; namespace: string; labels: Labels };
  status?: { podIP: string };
}
export interface Svc {
  metadata: { name: string; namespace: string };
  spec: { selector: Labels };
}
export interface Cm {
  metadata: { name: string; namespace: string; labels: Labels };
  data: { pod: string; v: string };
}

export const NAMESPACES = ['n0', 'n1', 'n2'];
export const POD_NAMES = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
export const SVC_NAMES = ['s0', 's1', 's2', 's3'];
export const CM_NAMES = ['c0', 'c1', 'c2', 'c3'];
export const IPS = ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'];

export const key = (o: { metadata: { name: string; namespace: string } }): string => `${o.metadata.namespace}/${o.metadata.name}`;
export const sorted = (xs: string[]): string[] => [...xs].sort();

export function randomLabels(r: Random): Labels {
  const l: Labels = {};
  if (r.chance(0.7)) l['app'] = r.pick(['a', 'b', 'c']);
  if (r.chance(0.5)) l['tier'] = r.pick(['x', 'y']);
  if (r.chance(0.08)) l['deep'] = '1';
  return l;
}

export function randomSelector(r: Random): Labels {
  const l: Labels = {};
  if (r.chance(0.6)) l['app'] = r.pick(['a', 'b', 'c']);
  if (r.chance(0.3)) l['tier'] = r.pick(['x', 'y']);
  return l;
}

export const randomPod = (r: Random, ns = r.pick(NAMESPACES), name = r.pick(POD_NAMES)): Pod => ({
  metadata: { name, namespace: ns, labels: randomLabels(r) },
  ...(r.chance(0.75) ? { status: { podIP: r.pick(IPS) } } : {}),
});
export const randomSvc = (r: Random): Svc => ({
  metadata: { name: r.pick(SVC_NAMES), namespace: r.pick(NAMESPACES) },
  spec: { selector: randomSelector(r) },
});
export const randomCm = (r: Random): Cm => ({
  metadata: { name: r.pick(CM_NAMES), namespace: r.pick(NAMESPACES), labels: r.chance(0.2) ? {} : randomSelector(r) },
  data: { pod: r.pick(POD_NAMES), v: String(r.int(4)) },
});

// ---- the graph under test and its naive twin ------------------------------------------------------------

export interface Snapshot {
  pods: Pod[];
  svcs: Svc[];
  cms: Cm[];
  mode: number | undefined;
  /** Expected lists computed so far for this snapshot (several expectations build on others). */
  memo: Map<string, unknown[]>;
}

/** One derived collection and the plain function that says what it must hold. */
export interface Checked {
  readonly name: string;
  collection: Collection<unknown>;
  readonly expected: (s: Snapshot) => unknown[];
  /**
   * Builds the collection anew (under a fresh stop signal) for kinds whose interesting moment happens once
   * per instance: a transform that starts reading a collection ranked above it lifts its rank for good.
   */
  readonly rebuild?: (stop: AbortSignal) => Collection<unknown>;
}

/** What each level of the graph builds on: the sources, and the registry of the collections it checks. */
export interface GraphBuilder {
  readonly pods: StaticCollection<Pod>;
  readonly svcs: StaticCollection<Svc>;
  readonly cms: StaticCollection<Cm>;
  readonly mode: StaticSingleton<number>;
  readonly checked: Checked[];
  /** The expected list of the checked collection `name` for this snapshot, computed once. */
  readonly expectedOf: (s: Snapshot, name: string) => unknown[];
  /** Registers a derived collection with its expectation; returns the collection. */
  readonly add: <T>(name: string, collection: Collection<T>, expected: (s: Snapshot) => T[]) => Collection<T>;
}
