// Finalizers: keep an object around until this controller has cleaned up after it, and never touch another's.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Collection } from '../core/types.js';
import { UsageError } from '../core/errors.js';
import { collectionPath } from './resourcePath.js';
import { ApiError, requestJson } from './request.js';
import { newReconciler, type ReconcileContext, type Reconciler, type ReconcilerOptions } from './newReconciler.js';

/** What a finalizer does and for which objects. */
export interface FinalizerOptions<T extends KubernetesObject> extends Pick<
  ReconcilerOptions<T>,
  'concurrency' | 'qps' | 'burst' | 'backoff' | 'gate' | 'stop' | 'timerScheduler' | 'debugger'
> {
  /** The finalizer's name, a qualified name such as `example.com/cleanup`. */
  name: string;
  /**
   * Cleans up after `obj`, which is being deleted. Runs once per object after it succeeds; on a throw it is
   * retried with backoff and the finalizer stays. It should be idempotent: a restart between cleanup and the
   * finalizer's removal runs it again.
   */
  finalize: (obj: T, ctx: ReconcileContext) => Promise<void>;
  /** Which live objects get the finalizer. Default: all. An object that stops being selected loses it. */
  selects?: (obj: T) => boolean;
  /** Plural of a kind, where the default rule (lower-case + s) does not fit. */
  plurals?: Record<string, string>;
  /** Per-request timeout. Default 60 000 ms. */
  requestTimeoutMs?: number;
}

type Patch = Array<{ op: 'test' | 'add' | 'remove'; path: string; value?: unknown }>;

/**
 * Keeps the finalizer `name` on the objects of `collection` it selects, and once one is being deleted
 * (`deletionTimestamp` set) runs `finalize(obj)` and then removes `name`, and only `name`: every patch is a
 * JSON patch whose `test` op pins the resourceVersion (when adding) or the entry being removed, so a
 * concurrent change by another controller makes the patch fail and be retried against the new object instead
 * of removing someone else's finalizer. Failures are retried with backoff, on `errors$` of the returned
 * reconciler.
 * @example
 * newFinalizer(kc, gadgets, {
 *   name: 'example.com/cleanup',
 *   finalize: async (g) => deleteExternalThing(g.metadata!.name!),
 * });
 */
export function newFinalizer<T extends KubernetesObject>(kc: KubeConfig, collection: Collection<T>, opts: FinalizerOptions<T>): Reconciler {
  if (typeof opts.name !== 'string' || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?(\/[-A-Za-z0-9_.]+)?$/.test(opts.name)) {
    throw new UsageError(
      `newFinalizer(${collection.name}): name must be a qualified name such as example.com/cleanup, got ${JSON.stringify(opts.name)}`,
    );
  }
  if (typeof opts.finalize !== 'function') {
    throw new UsageError(`newFinalizer(${collection.name}): finalize must be a function, got ${typeof opts.finalize}`);
  }
  const { name } = opts;
  // Objects (by uid) whose cleanup already succeeded: a failed removal of the finalizer must not clean up twice.
  const finalized = new Set<string>();

  const patch = async (obj: T, ops: Patch, signal: AbortSignal): Promise<void> => {
    const md = obj.metadata ?? {};
    const path = `${collectionPath({ apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '', namespace: md.namespace, plural: opts.plurals?.[obj.kind ?? ''] })}/${encodeURIComponent(md.name ?? '')}`;
    try {
      await requestJson(
        kc,
        'PATCH',
        path,
        {},
        { contentType: 'application/json-patch+json', value: ops },
        {
          signal,
          timeoutMs: opts.requestTimeoutMs ?? 60_000,
          scheduler: opts.timerScheduler,
        },
      );
    } catch (e) {
      // Gone already: nothing left to add to or remove from.
      if (e instanceof ApiError && e.statusCode === 404) return;
      throw e;
    }
  };

  const removeOwn = (obj: T, finalizers: readonly string[], signal: AbortSignal): Promise<void> => {
    const i = finalizers.indexOf(name);
    return patch(
      obj,
      [
        { op: 'test', path: `/metadata/finalizers/${i}`, value: name },
        { op: 'remove', path: `/metadata/finalizers/${i}` },
      ],
      signal,
    );
  };

  return newReconciler<T>(
    collection,
    async (obj, ctx) => {
      const md = obj.metadata ?? {};
      const finalizers = md.finalizers ?? [];
      const ours = finalizers.includes(name);
      if (md.deletionTimestamp !== undefined) {
        if (!ours) return;
        const uid = md.uid ?? `${md.namespace ?? ''}/${md.name ?? ''}`;
        if (!finalized.has(uid)) {
          await opts.finalize(obj, ctx);
          finalized.add(uid);
        }
        await removeOwn(obj, finalizers, ctx.signal);
        return;
      }
      const wanted = opts.selects?.(obj) ?? true;
      if (wanted && !ours) {
        const add: Patch[number] =
          finalizers.length === 0
            ? { op: 'add', path: '/metadata/finalizers', value: [name] }
            : { op: 'add', path: '/metadata/finalizers/-', value: name };
        await patch(obj, [{ op: 'test', path: '/metadata/resourceVersion', value: md.resourceVersion }, add], ctx.signal);
      } else if (!wanted && ours) {
        await removeOwn(obj, finalizers, ctx.signal);
      }
    },
    {
      name: `Finalizer[${name}]`,
      concurrency: opts.concurrency,
      qps: opts.qps,
      burst: opts.burst,
      backoff: opts.backoff,
      gate: opts.gate,
      stop: opts.stop,
      timerScheduler: opts.timerScheduler,
      debugger: opts.debugger,
      onDelete: (old) => {
        finalized.delete(old.metadata?.uid ?? `${old.metadata?.namespace ?? ''}/${old.metadata?.name ?? ''}`);
        return Promise.resolve();
      },
    },
  );
}
