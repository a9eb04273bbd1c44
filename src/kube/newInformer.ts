// newInformer: a source collection kept in step with the API server by list + watch, recovering from any fault.
import { asapScheduler, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Collection, CollectionOptions } from '../core/types.js';
import { TransformError } from '../core/errors.js';
import { equals } from '../core/equals.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import { SourceNode } from '../engine/sourceNode.js';
import { trackInformer } from '../observe/liveComponents.js';
import { collectionPath, type ResourceRef } from './resourcePath.js';
import { listAll } from './listAll.js';
import { ApiError } from './request.js';
import { INITIAL_STATE, step, type InformerEffect, type InformerInput, type InformerState } from './informerMachine.js';
import type { BackoffPolicy } from './backoff.js';

/** Options of `newInformer` beyond the common collection options. */
export interface InformerOptions extends CollectionOptions {
  /** When buffered watch events are applied (a burst is one transaction). Default `asapScheduler`. */
  scheduler?: SchedulerLike;
  /** Where backoff waits are scheduled. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
  backoff?: BackoffPolicy;
  /** LIST page size. Default 500. */
  pageSize?: number;
}

/** Counters of one informer (see `informerStats`). */
export interface InformerStats {
  lists: number;
  watches: number;
  watchEvents: number;
  bookmarks: number;
  relists: number;
  errors: number;
  state: InformerState['kind'];
}

interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubernetesObject;
}

function resourceVersionOf(o: unknown): string | undefined {
  return (o as KubernetesObject | undefined)?.metadata?.resourceVersion;
}

/** Two objects with a resourceVersion are the same object version exactly when the versions match. */
function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const ra = resourceVersionOf(a);
  const rb = resourceVersionOf(b);
  return ra !== undefined && rb !== undefined ? ra === rb : equals(a, b);
}

class InformerCollection<T extends KubernetesObject> extends SourceNode<T> {
  private machine: InformerState = INITIAL_STATE;
  private readonly path: string;
  private readonly watcher: Watch;
  private readonly flushScheduler: SchedulerLike;
  private readonly timerScheduler: SchedulerLike;
  private watchGeneration = 0;
  private watchAbort: AbortController | undefined;
  private timer: Subscription | undefined;
  private flushAction: Subscription | undefined;
  private buffer: WatchEvent[] = [];
  private listedOnce = false;
  readonly stats: InformerStats = { lists: 0, watches: 0, watchEvents: 0, bookmarks: 0, relists: 0, errors: 0, state: 'listing' };

  constructor(
    private readonly kc: KubeConfig,
    private readonly ref: ResourceRef,
    private readonly opts: InformerOptions | undefined,
  ) {
    super({ equals: sameVersion, ...opts }, `Informer/${ref.kind}`, false);
    this.path = collectionPath(ref);
    this.watcher = new Watch(kc);
    this.flushScheduler = opts?.scheduler ?? asapScheduler;
    this.timerScheduler = opts?.timerScheduler ?? asyncScheduler;
    this.start(opts);
    if (this.disposed) return;
    const resource = `${ref.apiVersion}/${ref.kind}`;
    this.leaveMetrics = trackInformer(this, () => ({ resource, collection: this, ...this.stats }));
    this.perform([{ kind: 'list' }]);
  }

  private input(i: InformerInput): void {
    const { state, effects } = step(this.machine, i, this.opts?.backoff);
    this.machine = state;
    this.stats.state = state.kind;
    this.perform(effects);
  }

  private perform(effects: readonly InformerEffect[]): void {
    for (const e of effects) {
      switch (e.kind) {
        case 'list':
          this.startList();
          break;
        case 'watch':
          this.watch(e.resourceVersion);
          break;
        case 'closeWatch':
          this.closeWatch();
          break;
        case 'wait':
          this.timer?.unsubscribe();
          this.timer = this.timerScheduler.schedule(() => {
            this.timer = undefined;
            this.input({ kind: 'timerFired' });
          }, e.ms);
          break;
        case 'cancelWait':
          this.timer?.unsubscribe();
          this.timer = undefined;
          break;
        case 'report':
          this.stats.errors++;
          this.reportError(new TransformError(this.name, undefined, this.explain(e.error), `${e.during} of ${this.path} failed; retrying`));
          break;
      }
    }
  }

  /** Turns a 404 on LIST into an error that names the kind the server does not know. */
  private explain(error: unknown): unknown {
    if (error instanceof ApiError && error.statusCode === 404 && !this.listedOnce) {
      return new ApiError(
        404,
        `the server has no resource for apiVersion=${this.ref.apiVersion} kind=${this.ref.kind} (${error.message})`,
        error.reason,
      );
    }
    return error;
  }

  private startList(): void {
    this.stats.lists++;
    const query = { labelSelector: this.ref.labelSelector, fieldSelector: this.ref.fieldSelector };
    listAll<T>(this.kc, this.path, query, { apiVersion: this.ref.apiVersion, kind: this.ref.kind }, this.opts?.pageSize ?? 500).then(
      (result) => {
        if (this.machine.kind !== 'listing') return;
        try {
          this.applyList(result.items);
        } catch (err) {
          // The list is committed (a transaction commits what it did before a throw); whatever threw
          // downstream must not leave the informer stuck in `listing` with an unhandled rejection.
          this.reportError(new TransformError(this.name, undefined, err, `applying the list of ${this.path} failed`));
        }
        this.input({ kind: 'listed', resourceVersion: result.resourceVersion });
      },
      (error: unknown) => {
        if (this.machine.kind === 'listing') this.input({ kind: 'listFailed', error });
      },
    );
  }

  /** Applies a complete LIST as one transaction, diffed against the cache so missed deletes surface. */
  private applyList(items: readonly T[]): void {
    this.applyBuffered();
    const first = !this.listedOnce;
    this.listedOnce = true;
    if (!first) this.stats.relists++;
    mutate(() => {
      const seen = new Set<string>();
      for (const item of items) {
        let key: string;
        try {
          key = this.keyOf(item);
        } catch (err) {
          this.reportError(new TransformError(this.name, undefined, err, 'listed object without a usable key'));
          continue;
        }
        seen.add(key);
        const cur = this.state.get(key);
        if (cur === undefined || resourceVersionOf(cur) !== resourceVersionOf(item)) this.write(key, freezeInput(item), false);
      }
      for (const key of [...this.state.keys()]) if (!seen.has(key)) this.write(key, undefined, false);
      if (first) this.markSynced();
    });
  }

  private watch(resourceVersion: string): void {
    this.closeWatch();
    this.stats.watches++;
    const generation = ++this.watchGeneration;
    const current = (): boolean => generation === this.watchGeneration && !this.disposed;
    const query = {
      resourceVersion,
      allowWatchBookmarks: true,
      labelSelector: this.ref.labelSelector,
      fieldSelector: this.ref.fieldSelector,
    };
    this.watcher
      .watch(
        this.path,
        query,
        (type: string, object: KubernetesObject & { code?: number; message?: string }) => {
          if (current()) this.onWatchEvent(type, object);
        },
        (err: unknown) => {
          if (current()) this.onWatchDone(err);
        },
      )
      .then(
        (abort) => {
          if (current()) this.watchAbort = abort;
          else abort.abort();
        },
        (err: unknown) => {
          if (current()) this.onWatchDone(err);
        },
      );
  }

  private onWatchEvent(type: string, object: KubernetesObject & { code?: number; message?: string; reason?: string }): void {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        this.stats.watchEvents++;
        this.buffer.push({ type, object });
        this.flushAction ??= this.flushScheduler.schedule(() => {
          this.flushAction = undefined;
          try {
            this.applyBuffered();
          } catch (err) {
            // Thrown into the scheduler it would surface as an unhandled error, far from its cause.
            this.reportError(new TransformError(this.name, undefined, err, `applying watch events of ${this.path} failed`));
          }
        });
        this.input({ kind: 'watchEvent', resourceVersion: resourceVersionOf(object) });
        break;
      case 'BOOKMARK':
        this.stats.bookmarks++;
        this.input({ kind: 'watchEvent', resourceVersion: resourceVersionOf(object) });
        break;
      case 'ERROR': {
        // A Status as the server sent it (decoded JSON): it may lack any field, or be missing altogether.
        const status = object as { code?: number; message?: string; reason?: string } | null | undefined;
        if (status?.code === 410) this.input({ kind: 'watchExpired' });
        else
          this.input({
            kind: 'watchFailed',
            error: new ApiError(status?.code ?? 500, `watch error: ${status?.message ?? JSON.stringify(object)}`, status?.reason),
          });
        break;
      }
      default:
        this.input({ kind: 'watchFailed', error: new Error(`unknown watch event type ${JSON.stringify(type)}`) });
    }
  }

  private onWatchDone(err: unknown): void {
    this.watchAbort = undefined;
    const status = (err as { statusCode?: number } | null)?.statusCode;
    if (err === null || err === undefined) this.input({ kind: 'watchClosed' });
    else if (status === 410) this.input({ kind: 'watchExpired' });
    else if ((err as { name?: string }).name === 'TimeoutError') this.input({ kind: 'watchClosed' });
    else this.input({ kind: 'watchFailed', error: err });
  }

  private closeWatch(): void {
    this.watchGeneration++;
    const abort = this.watchAbort;
    this.watchAbort = undefined;
    abort?.abort();
  }

  /** Applies the watch events buffered since the last flush as one transaction. */
  private applyBuffered(): void {
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    if (this.buffer.length === 0) return;
    const events = this.buffer;
    this.buffer = [];
    mutate(() => {
      for (const e of events) {
        let key: string;
        try {
          key = this.keyOf(e.object);
        } catch (err) {
          this.reportError(new TransformError(this.name, undefined, err, `watch ${e.type} event without a usable key`));
          continue;
        }
        if (e.type === 'DELETED') this.write(key, undefined, false);
        else this.write(key, freezeInput(e.object as T), false);
      }
    });
  }

  /** Leaves the set of running informers that metrics read. */
  private leaveMetrics: (() => void) | undefined;

  protected override onDispose(): void {
    this.leaveMetrics?.();
    this.input({ kind: 'stop' });
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    this.buffer = [];
    super.onDispose();
  }
}

/**
 * A source collection of Kubernetes objects: LIST (all pages, one transaction), then WATCH from the list's
 * resourceVersion with bookmarks. Any error is reported on `errors$` and retried with exponential backoff
 * (capped at 5 s); a `410 Gone` (HTTP or in-stream) relists and diffs against the cache, so deletes missed
 * while disconnected are emitted and nothing is duplicated. Synced once the first LIST is applied.
 * Starts on construction; `stop` closes the watch, and the last state stays readable.
 * @example const pods = newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod' });
 */
export function newInformer<T extends KubernetesObject>(kc: KubeConfig, resource: ResourceRef, opts?: InformerOptions): Collection<T> {
  return new InformerCollection<T>(kc, resource, opts);
}

/** The counters of an informer built by `newInformer` (undefined for any other collection). */
export function informerStats(c: Collection<unknown>): Readonly<InformerStats> | undefined {
  return c instanceof InformerCollection ? c.stats : undefined;
}
