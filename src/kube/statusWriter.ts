// The status writer: patches `.status` of objects to what a status collection computed, only the fields it
// computes and only when they differ, through the keyed work queue.
import { Subject, type Observable } from 'rxjs';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Collection, CollectionDump, Registration } from '../core/types.js';
import type { ObjectWithStatus } from '../collections/newStatusCollection.js';
import { internal } from '../engine/internalCollection.js';
import { log } from '../core/logger.js';
import { allocateUid } from '../engine/uid.js';
import { trackStatusWriter } from '../observe/liveComponents.js';
import { onAbort } from '../engine/onAbort.js';
import { collectionPath } from './resourcePath.js';
import { ApiError, requestJson } from './request.js';
import { RequestTimeoutError } from './requestTimeoutError.js';
import { retryAfterOf } from './retryAfter.js';
import { KeyedWorkQueue, type WorkFailure } from './keyedWorkQueue.js';
import { appliedStatus, appliedStatusFields, applyChanges, fieldsSet, ownedStatusPatch } from './ownedStatus.js';
import { StatusWriteError } from './statusWriteError.js';
import type { StatusWriter, StatusWriterOptions, StatusWriterStats } from './statusWriterOptions.js';

export type { StatusWriter, StatusWriterOptions, StatusWriterStats } from './statusWriterOptions.js';

type Live = KubernetesObject & { status?: unknown };

class Writer<I extends KubernetesObject, S> implements StatusWriter {
  readonly uid = allocateUid();
  readonly name: string;
  private readonly counters = { writes: 0, skipped: 0, conflicts: 0, failures: 0, notFound: 0, timeouts: 0 };
  private readonly errors = new Subject<StatusWriteError>();
  readonly errors$: Observable<StatusWriteError> = this.errors.asObservable();
  private readonly queue: KeyedWorkQueue;
  private readonly registration: Registration;
  /** Merge strategy: per key, the status fields this writer set and saw land (see `ownedStatusPatch`). */
  private readonly owned = new Map<string, ReadonlySet<string>>();
  private stopped = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly statuses: Collection<ObjectWithStatus<I, S>>,
    private readonly opts: StatusWriterOptions,
  ) {
    this.name = opts.name ?? `StatusWriter[${statuses.name}]`;
    const keyFn = internal(statuses, 'newStatusWriter').keyOf;
    this.queue = new KeyedWorkQueue('newStatusWriter', (key) => this.write(key), {
      concurrency: opts.concurrency,
      qps: opts.qps,
      burst: opts.burst,
      backoff: opts.backoff,
      maxAttempts: opts.maxAttempts ?? 8,
      gate: opts.gate,
      timerScheduler: opts.timerScheduler,
      keys: () => statuses.list().map(keyFn),
      needsWork: (key) => this.desiredToWrite(key) !== undefined,
      retryable: (e) => this.retryable(e),
      minRetryDelayMs: retryAfterOf,
      onFailure: (f) => this.failed(f),
    });
    // Stopped before it started: the replay below must not start a single write.
    this.stopped = opts.stop?.aborted === true;
    if (this.stopped) this.queue.stop();
    this.registration = statuses.registerBatch((batch) => {
      for (const e of batch) {
        if (e.type !== 'delete') this.queue.add(keyFn(e.new));
        else this.owned.delete(keyFn(e.old));
      }
    });
    if (this.stopped) {
      this.registration.unregister();
      return;
    }
    opts.debugger?.register(this);
    const statusOf = statuses.name;
    this.untrack = trackStatusWriter(() => {
      const { writes, skipped, conflicts, failures, queued } = this.stats;
      return { collection: statusOf, writes, skipped, conflicts, failures, queued };
    });
    if (opts.stop !== undefined) onAbort(opts.stop, () => this.stop());
  }

  /** Leaves the set of running writers that metrics read. */
  private untrack: (() => void) | undefined;

  get stats(): StatusWriterStats {
    const q = this.queue.stats();
    return { ...this.counters, retries: q.retries, inFlight: q.inFlight, queued: q.queued, notOwned: q.notOwned };
  }

  private get apply(): boolean {
    return this.opts.strategy === 'apply';
  }

  private get manager(): string {
    return this.opts.fieldManager ?? 'rxkrt';
  }

  /**
   * The desired status of `key` when it must be written; undefined (and counted) when the object is gone
   * (never write for an object that no longer exists) or already carries every field this writer computes.
   */
  private desiredToWrite(key: string): ObjectWithStatus<I, S> | undefined {
    const desired = this.statuses.getKey(key);
    if (desired === undefined) return undefined;
    const live = desired.obj as Live;
    const differs = this.apply
      ? applyChanges(live.status, desired.status, appliedStatusFields(live, this.manager))
      : ownedStatusPatch(live.status, desired.status, this.owned.get(key) ?? new Set()) !== undefined;
    if (differs) return desired;
    this.counters.skipped++;
    if (!this.apply) this.owned.set(key, fieldsSet(desired.status));
    return undefined;
  }

  private async write(key: string): Promise<void> {
    const desired = this.desiredToWrite(key);
    if (desired === undefined) return;
    try {
      await this.patch(key, desired.obj as Live, desired.status);
    } catch (e) {
      if (e instanceof ApiError && e.statusCode === 404) {
        this.counters.notFound++;
        return;
      }
      throw e;
    }
    this.counters.writes++;
    if (!this.apply) this.owned.set(key, fieldsSet(desired.status));
  }

  private async patch(key: string, live: Live, status: S): Promise<void> {
    const md = live.metadata ?? {};
    const apiVersion = live.apiVersion ?? '';
    const kind = live.kind ?? '';
    const bounds = { timeoutMs: this.opts.requestTimeoutMs ?? 60_000, scheduler: this.opts.timerScheduler };
    const path = `${collectionPath({ apiVersion, kind, namespace: md.namespace, plural: this.opts.plurals?.[kind] })}/${encodeURIComponent(md.name ?? '')}/status`;
    if (this.apply) {
      const query = { fieldManager: this.manager, force: this.opts.force === true ? 'true' : undefined };
      const value = { apiVersion, kind, metadata: { name: md.name, namespace: md.namespace }, status: appliedStatus(status) };
      await requestJson(this.kc, 'PATCH', path, query, { contentType: 'application/apply-patch+yaml', value }, bounds);
      return;
    }
    // The resourceVersion makes the patch conditional: a status computed from a stale object gets a 409.
    const fields = ownedStatusPatch(live.status, status, this.owned.get(key) ?? new Set()) ?? {};
    const value = { metadata: { resourceVersion: md.resourceVersion }, status: fields };
    await requestJson(this.kc, 'PATCH', path, {}, { contentType: 'application/merge-patch+json', value }, bounds);
  }

  /** Stale views (merge 409), throttling, 5xx and network failures heal; an apply conflict waits for a change. */
  private retryable(e: unknown): boolean {
    const status = e instanceof ApiError ? e.statusCode : undefined;
    if (status === 409) return !this.apply;
    return status === undefined || status === 429 || status >= 500;
  }

  private failed(f: WorkFailure): void {
    const status = f.error instanceof ApiError ? f.error.statusCode : undefined;
    if (status === 409) this.counters.conflicts++;
    if (f.error instanceof RequestTimeoutError) this.counters.timeouts++;
    if (f.retryInMs !== undefined) {
      log().debug(
        { statusWriter: this.name, key: f.key, attempt: f.attempt, status },
        `${this.name}: retrying the status of ${f.key} (attempt ${f.attempt}, ${status === undefined ? 'no answer' : `HTTP ${status}`})`,
      );
      return;
    }
    this.counters.failures++;
    const error = new StatusWriteError(this.name, f.key, f.attempt, f.error);
    log().error({ statusWriter: this.name, key: f.key, attempts: f.attempt, err: f.error }, error.message);
    this.errors.next(error);
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): void {
    if (this.stopped && this.untrack === undefined) return;
    this.stopped = true;
    this.registration.unregister();
    this.queue.stop();
    this.opts.debugger?.unregister(this);
    this.untrack?.();
    this.untrack = undefined;
    this.errors.complete();
  }

  dump(): CollectionDump {
    return {
      outputs: { stats: this.stats, queued: this.queue.queuedKeys(), inFlight: this.queue.activeKeys() },
      inputCollection: this.statuses.name,
      synced: this.registration.hasSynced(),
    };
  }
}

/**
 * Writes the statuses of a status collection back to the API server through each object's `status`
 * subresource: only the top-level status fields the transform computes, and only when they differ from
 * what the object carries, so several writers (or a writer and kubectl) can share one status. With
 * `strategy: 'merge'` a field the transform stops computing is removed, and a field it sets to `null` is
 * removed for good; fields it never computed are never touched. With `strategy: 'apply'` the fields go
 * under `fieldManager`, without `force` unless asked; a conflict with another manager is reported on
 * `errors$` and counted. Stale views (409), 429, 5xx, network errors and timeouts (`requestTimeoutMs`) are
 * retried with backoff, never sooner than the server's Retry-After (capped at 30 s); an object that no
 * longer exists is never written. Concurrency and rate are bounded; counters are in `stats`.
 * @example
 * const [status] = newStatusCollection(policies, (ctx, p) => ({ status: { matched: count(ctx, p) } }));
 * const writer = newStatusWriter(kc, status, { strategy: 'apply', fieldManager: 'my-controller' });
 */
export function newStatusWriter<I extends KubernetesObject, S>(
  kc: KubeConfig,
  statuses: Collection<ObjectWithStatus<I, S>>,
  opts: StatusWriterOptions = {},
): StatusWriter {
  return new Writer<I, S>(kc, statuses, opts);
}
