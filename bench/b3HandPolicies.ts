// B3's hand-written controllers: pod events enqueue the policies that select the pod; the worker resolves
// each queued policy once per drain and emits only real changes.
import { deepEqual, podKey, type Pod } from './fixtures.js';
import { matchLabels, resolve, type Policy, type ResolvedPolicy } from './b3Data.js';

/** What B3's scenario needs of a hand-written controller. */
export interface HandPolicies {
  readonly resolved: ReadonlyMap<string, ResolvedPolicy>;
  events: number;
  podEvent(pod: Pod): void;
  drain(): void;
}

/**
 * The earlier baseline: every pod event tests every policy (of every namespace), queued or not; a queued
 * policy is resolved by scanning its namespace's pods and compared with a generic deep-equal.
 */
export class WeakHandPolicies implements HandPolicies {
  readonly podsByNs = new Map<string, Map<string, Pod>>();
  readonly policies = new Map<string, Policy>();
  readonly resolved = new Map<string, ResolvedPolicy>();
  private queue = new Set<string>();
  events = 0;

  constructor(pods: Pod[], policies: Policy[]) {
    for (const p of policies) this.policies.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
    for (const p of pods) this.podEvent(p);
    this.drain();
  }

  podEvent(pod: Pod): void {
    let g = this.podsByNs.get(pod.metadata.namespace);
    if (g === undefined) this.podsByNs.set(pod.metadata.namespace, (g = new Map()));
    const old = g.get(podKey(pod));
    g.set(podKey(pod), pod);
    for (const [k, pol] of this.policies) {
      if (pol.metadata.namespace !== pod.metadata.namespace) continue;
      if (matchLabels(pol.spec.selector, pod) || (old !== undefined && matchLabels(pol.spec.selector, old))) this.queue.add(k);
    }
  }

  drain(): void {
    const keys = this.queue;
    this.queue = new Set();
    for (const k of keys) {
      const pol = this.policies.get(k)!;
      const next = resolve(pol, this.podsByNs.get(pol.metadata.namespace)?.values() ?? [], (pod) => matchLabels(pol.spec.selector, pod));
      const prev = this.resolved.get(k);
      if (prev !== undefined && deepEqual(prev, next)) continue;
      this.resolved.set(k, next);
      this.events++;
    }
  }
}

/** Per namespace: label key, then value, then the keys of what is filed under that pair. */
type PairIndex<V> = Map<string, Map<string, Map<string, V>>>;

/**
 * The strong baseline. Policies are filed by one pair of their selector (their anchor) per namespace, and
 * pods by each of their labels. A pod event looks up the policies anchored at the pod's labels, old and new,
 * and skips those already queued; a queued policy is resolved from the pods filed under its anchor, and
 * compared with its last addresses element by element.
 */
export class StrongHandPolicies implements HandPolicies {
  private readonly pods = new Map<string, Pod>();
  private readonly podsByNs = new Map<string, Map<string, Pod>>();
  /** Pods by namespace and label pair. */
  private readonly podIndex = new Map<string, PairIndex<Pod>>();
  private readonly policies = new Map<string, Policy>();
  /** Policies by namespace and anchor pair. */
  private readonly policyIndex = new Map<string, PairIndex<Policy>>();
  /** Policies with an empty selector (they select every pod of their namespace), by namespace. */
  private readonly selectAll = new Map<string, Map<string, Policy>>();
  readonly resolved = new Map<string, ResolvedPolicy>();
  private queue = new Set<string>();
  events = 0;

  constructor(pods: Pod[], policies: Policy[]) {
    for (const p of policies) this.policyEvent(p);
    for (const p of pods) this.podEvent(p);
    this.drain();
  }

  policyEvent(p: Policy): void {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    this.policies.set(key, p);
    const anchor = firstKey(p.spec.selector);
    if (anchor === undefined) nested(this.selectAll, p.metadata.namespace).set(key, p);
    else fileUnder(this.policyIndex, p.metadata.namespace, anchor, p.spec.selector[anchor]!, key, p);
    this.queue.add(key);
  }

  podEvent(pod: Pod): void {
    const key = podKey(pod);
    const ns = pod.metadata.namespace;
    const old = this.pods.get(key);
    this.pods.set(key, pod);
    nested(this.podsByNs, ns).set(key, pod);
    const relabelled = old === undefined || old.metadata.labels !== pod.metadata.labels;
    if (relabelled) {
      // Refiling keeps an unchanged pair's place (and so the order of the addresses it gives).
      if (old !== undefined)
        for (const k in old.metadata.labels)
          if (pod.metadata.labels[k] !== old.metadata.labels[k]) unfile(this.podIndex, ns, k, old.metadata.labels[k]!, key);
    }
    for (const k in pod.metadata.labels) fileUnder(this.podIndex, ns, k, pod.metadata.labels[k]!, key, pod);
    this.enqueueSelecting(ns, pod);
    if (relabelled && old !== undefined) this.enqueueSelecting(ns, old);
    const all = this.selectAll.get(ns);
    if (all !== undefined) for (const k of all.keys()) this.queue.add(k);
  }

  private enqueueSelecting(ns: string, pod: Pod): void {
    const byKey = this.policyIndex.get(ns);
    if (byKey === undefined) return;
    const labels = pod.metadata.labels;
    for (const k in labels) {
      const bucket = byKey.get(k)?.get(labels[k]!);
      if (bucket === undefined) continue;
      for (const [pk, pol] of bucket) if (!this.queue.has(pk) && matchLabels(pol.spec.selector, pod)) this.queue.add(pk);
    }
  }

  drain(): void {
    const keys = this.queue;
    this.queue = new Set();
    for (const k of keys) {
      const pol = this.policies.get(k)!;
      const ns = pol.metadata.namespace;
      const anchor = firstKey(pol.spec.selector);
      const candidates =
        anchor === undefined
          ? this.podsByNs.get(ns)?.values()
          : this.podIndex.get(ns)?.get(anchor)?.get(pol.spec.selector[anchor]!)?.values();
      const addresses: string[] = [];
      if (candidates !== undefined) {
        for (const pod of candidates) {
          const ip = pod.status.podIP;
          if (ip !== undefined && matchLabels(pol.spec.selector, pod)) addresses.push(ip);
        }
      }
      const prev = this.resolved.get(k);
      if (prev !== undefined && sameStrings(prev.addresses, addresses)) continue;
      this.resolved.set(k, { metadata: pol.metadata, addresses });
      this.events++;
    }
  }
}

function firstKey(selector: Readonly<Record<string, string>>): string | undefined {
  for (const k in selector) return k;
  return undefined;
}

function nested<K, V>(m: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = new Map()));
  return v;
}

function fileUnder<V>(index: Map<string, PairIndex<V>>, ns: string, k: string, v: string, key: string, value: V): void {
  nested(nested(nested(index, ns), k), v).set(key, value);
}

function unfile<V>(index: Map<string, PairIndex<V>>, ns: string, k: string, v: string, key: string): void {
  index.get(ns)?.get(k)?.get(v)?.delete(key);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
