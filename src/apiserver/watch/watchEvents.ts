// Turns committed store events into the watch events one watcher should see (selector transitions included).
import type { JsonObject } from '../apimachinery/json.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { present, selects, type ListOptions } from '../objects/listOptions.js';
import type { StoreEvent } from '../storage/eventHistory.js';
import { storedNamespace } from '../storage/store.js';
import type { StoredObject } from '../storage/storedObject.js';

/** One line of a watch stream. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: JsonObject;
}

/** What one watch selects: a resource, optionally one namespace and one name, and selectors. */
export interface WatchFilter {
  rt: ResourceType;
  namespace?: string;
  name?: string;
  opts: Pick<ListOptions, 'label' | 'field'>;
  /** What the watcher is sent of each object (its metadata alone, for a metadata-only watch). Default: all of it. */
  view?: (object: JsonObject) => JsonObject;
}

/**
 * The event a watcher with `filter` sees for a committed change, or `undefined`. As in the API server's
 * watch cache: an update that makes an object stop matching is `DELETED` (the old state, stamped with
 * the update's resourceVersion); one that makes it start matching is `ADDED`.
 */
export function watchEventFor(filter: WatchFilter, e: StoreEvent): WatchEvent | undefined {
  if (e.storageKey !== filter.rt.storageKey) return undefined;
  if (filter.namespace !== undefined && storedNamespace(e.object) !== filter.namespace) return undefined;
  if (filter.name !== undefined && e.object.metadata.name !== filter.name) return undefined;
  const now = selects(filter.rt, filter.opts, e.object);
  const shown = (o: StoredObject): JsonObject => (filter.view ?? same)(present(o, filter.rt));
  if (e.type !== 'MODIFIED') return now ? { type: e.type, object: shown(e.object) } : undefined;
  const before = e.previous !== undefined && selects(filter.rt, filter.opts, e.previous);
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: shown(e.object) };
  if (!before) return undefined;
  return { type: 'DELETED', object: shown(stamp(e.previous!, e.rv)) };
}

/** Synthetic `ADDED` events for objects that exist now (a watch from resourceVersion ""/"0"). */
export function initialEvents(filter: WatchFilter, objects: readonly StoredObject[]): WatchEvent[] {
  return objects
    .filter((o) => filter.name === undefined || o.metadata.name === filter.name)
    .filter((o) => selects(filter.rt, filter.opts, o))
    .map((o) => ({ type: 'ADDED', object: (filter.view ?? same)(present(o, filter.rt)) }));
}

/** A `BOOKMARK`: only kind, apiVersion and `metadata.resourceVersion` (plus annotations when given). */
export function bookmarkEvent(rt: ResourceType, rv: number, annotations?: Record<string, string>): WatchEvent {
  const metadata: JsonObject = { resourceVersion: String(rv) };
  if (annotations) metadata.annotations = annotations;
  return { type: 'BOOKMARK', object: { kind: rt.kind, apiVersion: rt.groupVersion, metadata } };
}

function same(o: JsonObject): JsonObject {
  return o;
}

function stamp(obj: StoredObject, rv: number): StoredObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
}
