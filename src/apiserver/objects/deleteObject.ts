// DELETE: preconditions, finalizers (mark, don't remove) and removal with cascades.
import { conflict, notFound } from '../apimachinery/statusError.js';
import { formatTime } from '../apimachinery/clock.js';
import type { ResourceType } from '../kinds/resourceType.js';
import type { ServerState } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';

/** `DeleteOptions.preconditions`. */
export interface DeletePreconditions {
  resourceVersion?: string;
  uid?: string;
}

/**
 * Deletes an object. Without finalizers it is removed at once and a `DELETED` event carries its last
 * state with a new resourceVersion. With finalizers it only gets `deletionTimestamp` (a `MODIFIED`
 * event) and goes away when an update empties `metadata.finalizers`. Returns the object as the
 * response body.
 *
 * @throws StatusError `404` when absent, `409 Conflict` when a precondition fails.
 */
export function deleteObject(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: { dryRun?: boolean; preconditions?: DeletePreconditions } = {},
): StoredObject {
  const before = state.store.get(rt.storageKey, namespace, name);
  if (!before) throw notFound(rt.plural, name, rt.group);
  const pre = opts.preconditions;
  if (pre?.resourceVersion && pre.resourceVersion !== before.metadata.resourceVersion) {
    throw conflict(
      rt.plural,
      name,
      rt.group,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${before.metadata.resourceVersion}`,
    );
  }
  if (pre?.uid && pre.uid !== before.metadata.uid) {
    throw conflict(
      rt.plural,
      name,
      rt.group,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${before.metadata.uid}`,
    );
  }
  const finalizers = before.metadata.finalizers;
  if (Array.isArray(finalizers) && finalizers.length > 0) {
    if (before.metadata.deletionTimestamp || opts.dryRun) return before;
    const marked = structuredClone(before) as StoredObject;
    marked.metadata.deletionTimestamp = formatTime(state.clock.now());
    marked.metadata.deletionGracePeriodSeconds = 0;
    // A real server bumps generation when it sets deletionTimestamp.
    marked.metadata.generation = before.metadata.generation + 1;
    return state.store.put(rt.storageKey, marked);
  }
  if (opts.dryRun) return before;
  return removeNow(state, rt, structuredClone(before) as StoredObject);
}

/** Removes an object for good, running its kind's cascade hooks around the store removal. */
export function removeNow(state: ServerState, rt: ResourceType, lastState: StoredObject): StoredObject {
  const hooks = state.hooks.get(rt.storageKey);
  hooks?.beforeRemove?.(lastState, state);
  const removed = state.store.remove(rt.storageKey, lastState);
  hooks?.afterRemove?.(removed, state);
  return removed;
}
