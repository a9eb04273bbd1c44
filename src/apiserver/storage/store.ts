// The object store: objects per resource, one global resourceVersion counter, event history and listeners.
import type { JsonValue } from '../apimachinery/json.js';
import { expired } from '../apimachinery/statusError.js';
import { EventHistory, type StoreEvent } from './eventHistory.js';
import type { StoredObject } from './storedObject.js';

/** Key of an object inside its resource: `namespace/name` (`/name` when cluster-scoped); sorts like etcd. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** The namespace of a stored object, `''` for cluster-scoped ones. */
export function storedNamespace(obj: StoredObject): string {
  const ns = obj.metadata.namespace;
  return typeof ns === 'string' ? ns : '';
}

/**
 * Holds every object, stamps every write with the next resourceVersion and tells listeners (the watch
 * hub) synchronously, so a watch that subscribes right after reading the counter never misses a write.
 * Stored objects are deep-frozen: callers copy before they change anything.
 */
export class Store {
  private counter: number;
  private readonly objects = new Map<string, Map<string, StoredObject>>();
  /**
   * The keys of each resource in sort order, built on the first LIST after a create or a delete of that
   * resource. Sorting every key on every request made each page of a paginated LIST cost as much as a
   * LIST of the whole resource (across all namespaces), where etcd reads a range.
   */
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly history: EventHistory;
  private readonly listeners = new Set<(event: StoreEvent) => void>();

  constructor(opts: { historySize?: number; initialResourceVersion?: number } = {}) {
    this.history = new EventHistory(opts.historySize ?? 10_000);
    this.counter = opts.initialResourceVersion ?? 0;
  }

  /** The global counter: the resourceVersion of the latest write. */
  resourceVersion(): number {
    return this.counter;
  }

  /** One object, or `undefined`. */
  get(storageKey: string, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.objects.get(storageKey)?.get(objectKey(namespace, name));
  }

  /**
   * Current objects of a resource (optionally one namespace), sorted by `namespace/name`; with `after`,
   * only those whose key sorts after it (the rest of a paginated LIST).
   */
  list(storageKey: string, namespace?: string, after?: string): StoredObject[] {
    const byKey = this.objects.get(storageKey);
    if (!byKey) return [];
    let keys = this.sortedKeys.get(storageKey);
    if (keys === undefined) this.sortedKeys.set(storageKey, (keys = [...byKey.keys()].sort()));
    return range(byKey, keys, namespace, after);
  }

  /**
   * Objects of a resource as they were at resourceVersion `rv`, rewound through the history: this is how
   * continue tokens and `resourceVersionMatch=Exact` see a consistent snapshot.
   *
   * @throws StatusError `410 Expired` when the history no longer reaches back to `rv`.
   */
  listAt(storageKey: string, rv: number, namespace?: string, after?: string): StoredObject[] {
    if (rv >= this.counter) return this.list(storageKey, namespace, after);
    this.assertReplayable(rv, `too old resource version: ${rv} (${this.history.oldestReplayable()})`);
    const snapshot = new Map(this.objects.get(storageKey));
    const later = this.history.after(rv).filter((e) => e.storageKey === storageKey);
    for (const e of later.reverse()) {
      const key = objectKey(storedNamespace(e.object), e.object.metadata.name);
      if (e.previous) snapshot.set(key, e.previous);
      else snapshot.delete(key);
    }
    return range(snapshot, [...snapshot.keys()].sort(), namespace, after);
  }

  /** Every object of every resource in one namespace (for namespace deletion). */
  inNamespace(namespace: string): Array<{ storageKey: string; object: StoredObject }> {
    const out: Array<{ storageKey: string; object: StoredObject }> = [];
    for (const [storageKey, byKey] of this.objects) {
      for (const object of byKey.values()) if (storedNamespace(object) === namespace) out.push({ storageKey, object });
    }
    return out;
  }

  /**
   * Commits an add or an update: stamps `object` with the next resourceVersion, stores it frozen,
   * records the event and notifies listeners. `object` must be a fresh copy owned by the caller.
   */
  put(storageKey: string, object: StoredObject): StoredObject {
    const key = objectKey(storedNamespace(object), object.metadata.name);
    const previous = this.objects.get(storageKey)?.get(key);
    const stored = this.stamp(object);
    let byKey = this.objects.get(storageKey);
    if (!byKey) this.objects.set(storageKey, (byKey = new Map()));
    if (!previous) this.sortedKeys.delete(storageKey);
    byKey.set(key, stored);
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rv: this.counter, storageKey, object: stored, previous });
    return stored;
  }

  /**
   * Commits a deletion. `lastState` (a fresh copy, normally the stored object) is stamped with the
   * deletion's resourceVersion, which is what the `DELETED` event and the response carry.
   */
  remove(storageKey: string, lastState: StoredObject): StoredObject {
    const key = objectKey(storedNamespace(lastState), lastState.metadata.name);
    const byKey = this.objects.get(storageKey);
    const previous = byKey?.get(key);
    // Callers check existence first; deleting a missing object is a bug in the server, not a 404.
    if (!byKey || !previous) throw new Error(`store: no ${storageKey} ${key} to remove`);
    const stored = this.stamp(lastState);
    byKey.delete(key);
    this.sortedKeys.delete(storageKey);
    if (byKey.size === 0) this.objects.delete(storageKey);
    this.emit({ type: 'DELETED', rv: this.counter, storageKey, object: stored, previous });
    return stored;
  }

  /** Forgets the history: replays and snapshots from before the current counter now get `410`. */
  compact(): void {
    this.history.compact(this.counter);
  }

  /**
   * Committed events after `rv`, oldest first.
   *
   * @throws StatusError `410 Expired` when events after `rv` were compacted or evicted.
   */
  eventsAfter(rv: number): StoreEvent[] {
    this.assertReplayable(rv, `too old resource version: ${rv} (${this.history.oldestReplayable()})`);
    return this.history.after(rv);
  }

  /** Throws `410 Expired` with `message` when the history cannot replay from `rv`. */
  assertReplayable(rv: number, message: string): void {
    if (rv < this.history.oldestReplayable()) throw expired(message);
  }

  /** Calls `listener` synchronously after every commit; returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private stamp(object: StoredObject): StoredObject {
    this.counter++;
    object.metadata.resourceVersion = String(this.counter);
    return deepFreeze(object);
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    for (const l of [...this.listeners]) l(event);
  }
}

/** The objects of `keys` (sorted) in `namespace` (all when undefined) whose key sorts after `after`. */
function range(
  byKey: ReadonlyMap<string, StoredObject>,
  keys: readonly string[],
  namespace: string | undefined,
  after: string | undefined,
): StoredObject[] {
  const prefix = namespace === undefined ? '' : `${namespace}/`;
  // A key after `after` and in the namespace is at least both bounds; the first one is found by bisection.
  let i = firstAtLeast(keys, prefix);
  if (after !== undefined && after >= prefix) {
    i = firstAtLeast(keys, after);
    if (i < keys.length && keys[i] === after) i++;
  }
  const out: StoredObject[] = [];
  for (; i < keys.length && keys[i]!.startsWith(prefix); i++) out.push(byKey.get(keys[i]!)!);
  return out;
}

/** The index of the first of the sorted `keys` that is not below `bound`. */
function firstAtLeast(keys: readonly string[], bound: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v as JsonValue);
    Object.freeze(value);
  }
  return value;
}
