// The Workload derivation in MobX, written idiomatically: observable maps, a computed per workload, a reaction counting changes.
import { compareStructural, computed, observable, reaction, runInAction, type IComputedValue, type IReactionDisposer } from 'mobx';
import { podKey, selects, type Pod, type Service, type Workload } from './fixtures.js';

export interface MobxWorkloads {
  readonly pods: Map<string, Pod>;
  readonly services: Map<string, Service>;
  readonly workloads: Map<string, IComputedValue<Workload | undefined>>;
  events: number;
  /** Applies pod updates in one action. */
  updatePods(pods: readonly Pod[]): void;
  stop(): void;
}

/** Builds the stores, one structural computed per pod and a reaction per computed; reactions run once on return. */
export function buildMobxWorkloads(pods: readonly Pod[], services: readonly Service[]): MobxWorkloads {
  // Objects are replaced, never mutated: keep them as plain references (`deep: false`).
  const podMap = observable.map<string, Pod>(
    pods.map((p) => [podKey(p), p]),
    { deep: false },
  );
  const svcMap = observable.map<string, Service>(
    services.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]),
    { deep: false },
  );
  // The namespace index, derived once and shared by every workload.
  const servicesByNamespace = computed(() => {
    const m = new Map<string, Service[]>();
    for (const s of svcMap.values()) {
      let l = m.get(s.metadata.namespace);
      if (l === undefined) m.set(s.metadata.namespace, (l = []));
      l.push(s);
    }
    return m;
  });
  const workloads = new Map<string, IComputedValue<Workload | undefined>>();
  const disposers: IReactionDisposer[] = [];
  const g: MobxWorkloads = {
    pods: podMap,
    services: svcMap,
    workloads,
    events: 0,
    updatePods: (next) =>
      runInAction(() => {
        for (const p of next) podMap.set(podKey(p), p);
      }),
    stop: () => {
      for (const d of disposers) d();
    },
  };
  for (const key of podMap.keys()) {
    const w = computed(
      (): Workload | undefined => {
        const p = podMap.get(key);
        const ip = p?.status.podIP;
        if (p === undefined || ip === undefined || ip === '') return undefined;
        const names: string[] = [];
        for (const s of servicesByNamespace.get().get(p.metadata.namespace) ?? []) {
          if (selects(s.spec.selector, p.metadata.labels)) names.push(s.metadata.name);
        }
        return { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip, serviceNames: names };
      },
      { equals: compareStructural },
    );
    workloads.set(key, w);
    disposers.push(
      reaction(
        () => w.get(),
        () => {
          g.events++;
        },
        { fireImmediately: true },
      ),
    );
  }
  return g;
}
