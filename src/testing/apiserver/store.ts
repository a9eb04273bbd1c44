// The object store: objects per resource, one global resourceVersion counter, event history and listeners.
import { expired } from './apiError.js';
import { EventHistory, type StoreEvent } from './eventHistory.js';
import type { JsonValue, StoredObject } from './types.js';

/** Key of an object inside its resource: `namespace/name` (`/name` when cluster-scoped); sorts like etcd. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** The namespace of a stored object, `''` for cluster-scoped ones. */
export function namespaceOf(obj: StoredObject): string {
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

  /** Current objects of a resource (optionally one namespace), sorted by `namespace/name`. */
  list(storageKey: string, namespace?: string): StoredObject[] {
    return this.entries(this.objects.get(storageKey), namespace);
  }

  /**
   * Objects of a resource as they were at resourceVersion `rv`, rewound through the history: this is how
   * continue tokens and `resourceVersionMatch=Exact` see a consistent snapshot.
   *
   * @throws ApiError `410 Expired` when the history no longer reaches back to `rv`.
   */
  listAt(storageKey: string, rv: number, namespace?: string): StoredObject[] {
    if (rv >= this.counter) return this.list(storageKey, namespace);
    this.assertReplayable(rv, `too old resource version: ${rv} (${this.history.oldestReplayable()})`);
    const snapshot = new Map(this.objects.get(storageKey));
    const later = this.history.after(rv).filter((e) => e.storageKey === storageKey);
    for (const e of later.reverse()) {
      const key = objectKey(namespaceOf(e.object), e.object.metadata.name);
      if (e.previous) snapshot.set(key, e.previous);
      else snapshot.delete(key);
    }
    return this.entries(snapshot, namespace);
  }

  /** Every object of every resource in one namespace (for namespace deletion). */
  inNamespace(namespace: string): Array<{ storageKey: string; object: StoredObject }> {
    const out: Array<{ storageKey: string; object: StoredObject }> = [];
    for (const [storageKey, byKey] of this.objects) {
      for (const object of byKey.values()) if (namespaceOf(object) === namespace) out.push({ storageKey, object });
    }
    return out;
  }

  /**
   * Commits an add or an update: stamps `object` with the next resourceVersion, stores it frozen,
   * records the event and notifies listeners. `object` must be a fresh copy owned by the caller.
   */
  put(storageKey: string, object: StoredObject): StoredObject {
    const key = objectKey(namespaceOf(object), object.metadata.name);
    const previous = this.objects.get(storageKey)?.get(key);
    const stored = this.stamp(object);
    let byKey = this.objects.get(storageKey);
    if (!byKey) this.objects.set(storageKey, (byKey = new Map()));
    byKey.set(key, stored);
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rv: this.counter, storageKey, object: stored, previous });
    return stored;
  }

  /**
   * Commits a deletion. `lastState` (a fresh copy, normally the stored object) is stamped with the
   * deletion's resourceVersion, which is what the `DELETED` event and the response carry.
   */
  remove(storageKey: string, lastState: StoredObject): StoredObject {
    const key = objectKey(namespaceOf(lastState), lastState.metadata.name);
    const byKey = this.objects.get(storageKey);
    const previous = byKey?.get(key);
    // Callers check existence first; deleting a missing object is a bug in the server, not a 404.
    if (!byKey || !previous) throw new Error(`store: no ${storageKey} ${key} to remove`);
    const stored = this.stamp(lastState);
    byKey.delete(key);
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
   * @throws ApiError `410 Expired` when events after `rv` were compacted or evicted.
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

  private entries(byKey: Map<string, StoredObject> | undefined, namespace?: string): StoredObject[] {
    if (!byKey) return [];
    const keys = [...byKey.keys()].sort();
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const out: StoredObject[] = [];
    for (const k of keys) if (prefix === undefined || k.startsWith(prefix)) out.push(byKey.get(k)!);
    return out;
  }
}

function deepFreeze<T extends JsonValue>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v as JsonValue);
    Object.freeze(value);
  }
  return value;
}
