// The engine floor: the least work a dependency-tracking engine does for B1, with none of rxkrt's code.
//
// The contract floor (`contractFloor.ts`) prices rxkrt's API contract on a hand-written controller; this
// prices the model on top of it: a source collection that keeps frozen inputs, a selector-aware index
// over the services, and a derived collection that runs a generic transform per input through a context,
// records what the run fetched, files the input under what it read (so that a service change could find
// its readers), freezes the output, suppresses an equal one with `equals`, and hands each transaction's
// changes to its handlers as one batch, the initial state replayed to a handler as it registers. What rxkrt
// does beyond it (liveness, sync tracking, ranks and stale reads, output conflicts, error isolation,
// observability) is what its engine adds; what this costs over the hand-written controller, a design of
// this model cannot avoid. It takes pod updates only, as B1's scenarios make.
import { equals } from '../src/index.js';
import { selects, type Pod, type Service, type Workload } from './fixtures.js';
import { anchorOf, insertByRank, type AnchorIndex } from './strongHandWritten.js';

type Labels = Readonly<Record<string, string>>;

/** What one run fetched: the index, the key it read under and the labels it filtered with. */
export interface Fetched {
  readonly index: FloorServiceIndex;
  readonly key: string;
  readonly labels: Labels;
}

/** The context a transform runs with: it records the run's fetch. */
export interface FloorContext {
  fetched: Fetched | undefined;
}

/** One input of the derived collection: its value, what its last run fetched, and its visible output. */
interface Entry<I, O> {
  readonly key: string;
  input: I | undefined;
  fetched: Fetched | undefined;
  value: O | undefined;
  queued: boolean;
}

export interface FloorEvent<O> {
  readonly type: 'add' | 'update' | 'delete';
  readonly old?: O;
  readonly new?: O;
}

interface Dependent<T> {
  receive(key: string, next: T): void;
  flush(): void;
}

/** A source collection: frozen objects by key; a write is one transaction, flushed to every dependent once. */
export class FloorSource<T> {
  readonly state = new Map<string, T>();
  private readonly dependents: Dependent<T>[] = [];

  constructor(
    objects: readonly T[],
    private readonly keyOf: (o: T) => string,
  ) {
    for (const o of objects) this.state.set(keyOf(o), Object.freeze(o));
  }

  subscribe(d: Dependent<T>): void {
    this.dependents.push(d);
  }

  write(objects: readonly T[]): void {
    for (const o of objects) {
      const key = this.keyOf(o);
      const frozen = Object.freeze(o);
      this.state.set(key, frozen);
      for (const d of this.dependents) d.receive(key, frozen);
    }
    for (const d of this.dependents) d.flush();
  }
}

/**
 * The services by namespace, each namespace's filed by anchor (as the strong hand-written controller files
 * them, so that the floor's lookup costs what the baseline's does); a fetch records itself in the context.
 */
export class FloorServiceIndex {
  private readonly byNamespace = new Map<string, AnchorIndex>();

  // Filed as the hand-written controller files them, in a copy of its own (as the contract floor's is): a shared
  // function's property loads would see the floor's frozen services and the baseline's unfrozen ones alike.
  constructor(services: { readonly state: ReadonlyMap<string, Service> }) {
    let rank = 0;
    for (const [key, svc] of services.state) {
      const anchor = anchorOf(svc.spec.selector);
      if (anchor === undefined) continue;
      let ns = this.byNamespace.get(svc.metadata.namespace);
      if (ns === undefined) this.byNamespace.set(svc.metadata.namespace, (ns = new Map()));
      let byValue = ns.get(anchor);
      if (byValue === undefined) ns.set(anchor, (byValue = new Map()));
      const value = svc.spec.selector[anchor]!;
      let bucket = byValue.get(value);
      if (bucket === undefined) byValue.set(value, (bucket = new Map()));
      bucket.set(key, { svc, rank: rank++ });
    }
  }

  /** The services of `namespace` whose selector is non-empty and selects `labels`, in order of first appearance. */
  fetch(ctx: FloorContext, namespace: string, labels: Labels): Service[] {
    ctx.fetched = { index: this, key: namespace, labels };
    const found: Service[] = [];
    const ranks: number[] = [];
    const anchors = this.byNamespace.get(namespace);
    if (anchors === undefined) return found;
    for (const k in labels) {
      const bucket = anchors.get(k)?.get(labels[k]!);
      if (bucket === undefined) continue;
      for (const f of bucket.values()) {
        if (selects(f.svc.spec.selector, labels)) insertByRank(found, ranks, f.svc, f.rank);
      }
    }
    return found;
  }
}

/** A derived collection keyed like its parent (one output per input, named after it). */
export class FloorDerived<
  I extends { metadata: { name: string; namespace: string } },
  O extends { metadata: { name: string; namespace: string } },
> implements Dependent<I> {
  private readonly entries = new Map<string, Entry<I, O>>();
  /** The reverse index: the inputs that read each index key. */
  private readonly readers = new Map<string, Set<Entry<I, O>>>();
  private readonly queue: Entry<I, O>[] = [];
  private changed: FloorEvent<O>[] = [];
  private readonly handlers: Array<(e: FloorEvent<O>) => void> = [];
  private readonly ctx: FloorContext = { fetched: undefined };

  constructor(
    parent: FloorSource<I>,
    private readonly transform: (ctx: FloorContext, input: I) => O | undefined,
  ) {
    parent.subscribe(this);
    for (const [key, input] of parent.state) {
      const e: Entry<I, O> = { key, input, fetched: undefined, value: undefined, queued: false };
      this.entries.set(key, e);
      this.run(e);
    }
    this.changed = [];
  }

  /** Registers a handler and replays the current outputs to it as adds. */
  register(h: (e: FloorEvent<O>) => void): void {
    const replay: FloorEvent<O>[] = [];
    for (const e of this.entries.values()) if (e.value !== undefined) replay.push({ type: 'add', new: e.value });
    for (const ev of replay) h(ev);
    this.handlers.push(h);
  }

  receive(key: string, next: I): void {
    let e = this.entries.get(key);
    if (e === undefined) this.entries.set(key, (e = { key, input: next, fetched: undefined, value: undefined, queued: false }));
    e.input = next;
    if (!e.queued) {
      e.queued = true;
      this.queue.push(e);
    }
  }

  flush(): void {
    for (const e of this.queue) {
      e.queued = false;
      this.run(e);
    }
    this.queue.length = 0;
    if (this.changed.length === 0) return;
    const batch = this.changed;
    this.changed = [];
    for (const h of this.handlers) for (const ev of batch) h(ev);
  }

  values(): IterableIterator<O> {
    return (function* (entries: Map<string, Entry<I, O>>) {
      for (const e of entries.values()) if (e.value !== undefined) yield e.value;
    })(this.entries);
  }

  private run(e: Entry<I, O>): void {
    const ctx = this.ctx;
    ctx.fetched = undefined;
    const out = this.transform(ctx, e.input!);
    this.file(e, ctx.fetched);
    const prev = e.value;
    if (out === undefined) {
      if (prev !== undefined) {
        e.value = undefined;
        this.changed.push({ type: 'delete', old: prev });
      }
      return;
    }
    if (out.metadata.name !== e.input!.metadata.name || out.metadata.namespace !== e.input!.metadata.namespace) {
      throw new Error(`engine floor: output ${out.metadata.namespace}/${out.metadata.name} is not keyed like input ${e.key}`);
    }
    if (prev !== undefined && equals(prev, out)) return;
    e.value = Object.freeze(out);
    this.changed.push(prev === undefined ? { type: 'add', new: out } : { type: 'update', old: prev, new: out });
  }

  private file(e: Entry<I, O>, fetched: Fetched | undefined): void {
    fileReader(this.readers, e, fetched);
  }
}

/** Files an input under what its run read (`readers`: the inputs by the index key they read), and out from under what its last run read. */
export function fileReader<E extends { fetched: Fetched | undefined }>(
  readers: Map<string, Set<E>>,
  e: E,
  fetched: Fetched | undefined,
): void {
  const old = e.fetched;
  e.fetched = fetched;
  if (old?.index === fetched?.index && old?.key === fetched?.key) return;
  if (old !== undefined) readers.get(old.key)?.delete(e);
  if (fetched !== undefined) {
    let s = readers.get(fetched.key);
    if (s === undefined) readers.set(fetched.key, (s = new Set()));
    s.add(e);
  }
}

/** B1's Workload transform through the floor's index. */
export function floorWorkloadOf(index: FloorServiceIndex): (ctx: FloorContext, p: Pod) => Workload | undefined {
  return (ctx, p) => {
    const ip = p.status.podIP;
    if (ip === undefined || ip === '') return undefined;
    const svcs = index.fetch(ctx, p.metadata.namespace, p.metadata.labels);
    return { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip, serviceNames: svcs.map((s) => s.metadata.name) };
  };
}
