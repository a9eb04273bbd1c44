// DELETE: preconditions, propagation finalizers, finalizers (mark, don't remove) and removal with cascades.
import { stringsOf } from '../apimachinery/json.js';
import type { PropagationPolicy } from '../apimachinery/queryParams.js';
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

/** The garbage collector's finalizers, which the API server itself adds for the `Orphan` and `Foreground` policies. */
export const ORPHAN_FINALIZER = 'orphan';
/** See {@link ORPHAN_FINALIZER}. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Options of one delete. */
export interface DeleteOptions {
  dryRun?: boolean;
  preconditions?: DeletePreconditions;
  /** `undefined` keeps whichever propagation finalizer the object already has (Background otherwise). */
  propagationPolicy?: PropagationPolicy;
}

/**
 * Deletes an object. Without finalizers it is removed at once and a `DELETED` event carries its last
 * state with a new resourceVersion. With finalizers it only gets `deletionTimestamp` (a `MODIFIED`
 * event) and goes away when an update empties `metadata.finalizers`. Returns the object as the
 * response body.
 *
 * As kube-apiserver does, `Foreground` adds the `foregroundDeletion` finalizer and `Orphan` the `orphan` one
 * (each replacing the other; `Background` drops both). No garbage collector runs here: such an object stays,
 * marked for deletion, until a client removes the finalizer. With `dryRun` the answer is what would be written.
 *
 * @throws StatusError `404` when absent, `409 Conflict` when a precondition fails.
 */
export function deleteObject(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions = {},
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
  const current = stringsOf(before.metadata.finalizers);
  const finalizers = withPropagationFinalizers(current, opts.propagationPolicy);
  if (finalizers.length > 0) {
    const changed = finalizers.length !== current.length || finalizers.some((f, i) => f !== current[i]);
    if (before.metadata.deletionTimestamp && !changed) return before;
    const marked = structuredClone(before) as StoredObject;
    marked.metadata.finalizers = finalizers;
    if (!marked.metadata.deletionTimestamp) {
      marked.metadata.deletionTimestamp = formatTime(state.clock.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      // A real server bumps generation when it sets deletionTimestamp.
      marked.metadata.generation = before.metadata.generation + 1;
    }
    if (opts.dryRun) return marked;
    return state.store.put(rt.storageKey, marked);
  }
  if (opts.dryRun) return before;
  return removeNow(state, rt, structuredClone(before) as StoredObject);
}

// The object's finalizers with the garbage collector's two replaced as the policy asks (kube's
// deletionFinalizersForGarbageCollection): without a policy, one already there is kept.
function withPropagationFinalizers(finalizers: string[], policy: PropagationPolicy | undefined): string[] {
  const orphan = policy === 'Orphan' || (policy === undefined && finalizers.includes(ORPHAN_FINALIZER));
  const foreground = policy === 'Foreground' || (policy === undefined && finalizers.includes(FOREGROUND_FINALIZER));
  const rest = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  return [...rest, ...(orphan ? [ORPHAN_FINALIZER] : []), ...(foreground ? [FOREGROUND_FINALIZER] : [])];
}

/** Removes an object for good, running its kind's cascade hooks around the store removal. */
export function removeNow(state: ServerState, rt: ResourceType, lastState: StoredObject): StoredObject {
  const hooks = state.hooks.get(rt.storageKey);
  hooks?.beforeRemove?.(lastState, state);
  const removed = state.store.remove(rt.storageKey, lastState);
  hooks?.afterRemove?.(removed, state);
  return removed;
}
