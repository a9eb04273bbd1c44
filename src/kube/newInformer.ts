// newInformer: a source collection kept in step with the API server by list + watch, recovering from any fault.
import { asapScheduler, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Collection } from '../core/types.js';
import { TransformError } from '../core/errors.js';
import { equals } from '../core/equals.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import { SourceNode } from '../engine/sourceNode.js';
import { log } from '../core/logger.js';
import { trackInformer } from '../observe/liveComponents.js';
import { collectionPath, type ResourceRef } from './resourcePath.js';
import { listAll } from './listAll.js';
import { ApiError } from './apiError.js';
import { RequestTimeoutError } from './requestTimeoutError.js';
import { retryAfterOf } from './retryAfter.js';
import { INITIAL_STATE, step, type InformerEffect, type InformerInput, type InformerState } from './informerMachine.js';
import { jitteredDelay } from './backoff.js';
import type { InformerOptions, InformerStats } from './informerOptions.js';
import { admissionFor, isDecimalResourceVersion, type Admission } from './admission.js';
import { RejectedObjectError } from './rejectedObjectError.js';
import { WatchConnection, watchEndInput, watchErrorInput } from './watchConnection.js';

interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubernetesObject;
}

function resourceVersionOf(o: unknown): string | undefined {
  const rv = (o as { metadata?: { resourceVersion?: unknown } | null } | null | undefined)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
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
  private readonly connection: WatchConnection;
  private readonly admit: Admission;
  private readonly flushScheduler: SchedulerLike;
  private readonly timerScheduler: SchedulerLike;
  private timer: Subscription | undefined;
  /** Fires `watchHealthy` once the open watch has lasted `healthyWatchMs`. */
  private healthTimer: Subscription | undefined;
  /** Aborts the LIST in flight (on stop, or when a newer LIST replaces it). */
  private listAbort: AbortController | undefined;
  private flushAction: Subscription | undefined;
  private buffer: WatchEvent[] = [];
  private listedOnce = false;
  readonly stats: InformerStats = {
    lists: 0,
    watches: 0,
    watchEvents: 0,
    bookmarks: 0,
    relists: 0,
    errors: 0,
    rejected: 0,
    timeouts: 0,
    state: 'listing',
  };

  constructor(
    private readonly kc: KubeConfig,
    private readonly ref: ResourceRef,
    private readonly opts: InformerOptions | undefined,
  ) {
    super({ equals: sameVersion, ...opts }, `Informer/${ref.kind}`, false);
    this.path = collectionPath(ref);
    this.admit = admissionFor(ref, { opaqueResourceVersions: opts?.opaqueResourceVersions });
    this.connection = new WatchConnection(kc, this.path, {
      opened: () => this.armHealthTimer(),
      event: (type, object) => this.onWatchEvent(type, object),
      done: (err) => {
        this.disarmHealthTimer();
        this.input(watchEndInput(err));
      },
    });
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
          this.disarmHealthTimer();
          this.connection.close();
          break;
        case 'wait':
          this.timer?.unsubscribe();
          this.timer = this.timerScheduler.schedule(
            () => {
              this.timer = undefined;
              this.input({ kind: 'timerFired' });
            },
            Math.max(jitteredDelay(e.ms, this.opts?.backoff), e.atLeastMs ?? 0),
          );
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
    this.listAbort?.abort();
    const abort = (this.listAbort = new AbortController());
    const request = { signal: abort.signal, timeoutMs: this.opts?.requestTimeoutMs ?? 60_000, scheduler: this.timerScheduler };
    listAll(this.kc, this.path, { query, pageSize: this.opts?.pageSize ?? 500, maxPages: this.opts?.maxListPages ?? 10_000, request }).then(
      (result) => {
        if (this.listAbort !== abort) return;
        this.listAbort = undefined;
        if (this.machine.kind !== 'listing') return;
        if (!this.opts?.opaqueResourceVersions && !isDecimalResourceVersion(result.resourceVersion)) {
          // Watching from it would be refused for ever: the LIST failed, and is retried.
          this.stats.rejected++;
          const reason = 'the LIST resourceVersion is not a decimal string';
          this.input({ kind: 'listFailed', error: new RejectedObjectError(this.path, undefined, result.resourceVersion, reason) });
          return;
        }
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
        if (this.listAbort !== abort) return;
        this.listAbort = undefined;
        if (error instanceof RequestTimeoutError) this.stats.timeouts++;
        if (this.machine.kind === 'listing') this.input({ kind: 'listFailed', error, retryAfterMs: retryAfterOf(error) });
      },
    );
  }

  /** Applies a complete LIST as one transaction, diffed against the cache so missed deletes surface. */
  private applyList(items: readonly unknown[]): void {
    this.applyBuffered();
    const first = !this.listedOnce;
    this.listedOnce = true;
    if (!first) this.stats.relists++;
    log().info(
      { collection: this.name, resource: this.path, objects: items.length, relist: !first },
      `informer ${JSON.stringify(this.name)} ${first ? 'listed' : 'relisted'} ${items.length} object(s) from ${this.path}`,
    );
    mutate(() => {
      const seen = new Set<string>();
      for (const value of items) {
        const admitted = this.admitted(value, 'listed object', seen);
        if (admitted === undefined) continue;
        // List items usually omit their type; the cache holds every object with it, as watch events carry it.
        const item = (
          admitted.kind === undefined || admitted.apiVersion === undefined
            ? { ...admitted, apiVersion: this.ref.apiVersion, kind: this.ref.kind }
            : admitted
        ) as T;
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

  /**
   * The object if admission accepts it; otherwise undefined, counted and reported (naming key and value).
   * `keep` learns the key of a rejected object that is still ours, so a relist keeps its cached version.
   */
  private admitted(value: unknown, what: string, keep?: Set<string>): KubernetesObject | undefined {
    const verdict = this.admit(value);
    if (verdict.ok) return verdict.object;
    if (verdict.ours === true && keep !== undefined) {
      try {
        keep.add(this.keyOf(value as T));
      } catch {
        // No key of this collection's own: there is no cached version to keep, and the rejection is reported below.
      }
    }
    this.stats.rejected++;
    const error = new RejectedObjectError(this.path, verdict.key, value, verdict.reason);
    this.reportError(new TransformError(this.name, verdict.key, error, `${what} rejected`));
    return undefined;
  }

  private armHealthTimer(): void {
    this.disarmHealthTimer();
    this.healthTimer = this.timerScheduler.schedule(() => {
      this.healthTimer = undefined;
      this.input({ kind: 'watchHealthy' });
    }, this.opts?.healthyWatchMs ?? 10_000);
  }

  private disarmHealthTimer(): void {
    this.healthTimer?.unsubscribe();
    this.healthTimer = undefined;
  }

  private watch(resourceVersion: string): void {
    this.disarmHealthTimer();
    this.stats.watches++;
    log().debug({ collection: this.name, resource: this.path }, `informer ${JSON.stringify(this.name)} watching ${this.path}`);
    this.connection.open({
      resourceVersion,
      allowWatchBookmarks: true,
      labelSelector: this.ref.labelSelector,
      fieldSelector: this.ref.fieldSelector,
    });
  }

  private onWatchEvent(type: string, value: unknown): void {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        const object = this.admitted(value, `watch ${type} event`);
        // Refused: nothing stored, and its resourceVersion is not one to resume from.
        if (object === undefined) return;
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
      }
      case 'BOOKMARK': {
        const rv = resourceVersionOf(value);
        if (rv !== undefined && !this.opts?.opaqueResourceVersions && !isDecimalResourceVersion(rv)) {
          this.stats.rejected++;
          const error = new RejectedObjectError(this.path, undefined, value, 'bookmark resourceVersion is not a decimal string');
          this.reportError(new TransformError(this.name, undefined, error, 'watch BOOKMARK rejected'));
          return;
        }
        this.stats.bookmarks++;
        this.input({ kind: 'watchEvent', resourceVersion: rv });
        break;
      }
      case 'ERROR':
        this.input(watchErrorInput(value));
        break;
      default:
        this.input({ kind: 'watchFailed', error: new Error(`unknown watch event type ${JSON.stringify(type)}`) });
    }
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
    // Pages not yet fetched are never asked for, and the one in flight is cut.
    this.listAbort?.abort(new Error(`informer ${this.name} stopped`));
    this.listAbort = undefined;
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    this.buffer = [];
    super.onDispose();
  }
}

/**
 * A source collection of Kubernetes objects: LIST (all pages, one transaction), then WATCH from the list's
 * resourceVersion with bookmarks. Any error is reported on `errors$` and retried with exponential backoff
 * (capped at 5 s, jittered, never sooner than a 429/5xx's Retry-After, reset only after a watch stayed healthy);
 * a `410 Gone` (HTTP or in-stream) or a `400` refusing the resourceVersion relists and diffs against the cache,
 * so deletes missed while disconnected are emitted and nothing is duplicated. Synced once the first LIST is applied.
 * The server is not trusted: an object that is not one, lies outside the namespace or selectors, or carries
 * a resourceVersion that is not a decimal string is rejected (a `RejectedObjectError` on `errors$`) and the
 * rest is kept; every request is bounded (`requestTimeoutMs`), and so is a LIST's paging (`maxListPages`).
 * Starts on construction; `stop` closes the watch and aborts a LIST in flight; the last state stays readable.
 * @example const pods = newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod' });
 */
export function newInformer<T extends KubernetesObject>(kc: KubeConfig, resource: ResourceRef, opts?: InformerOptions): Collection<T> {
  return new InformerCollection<T>(kc, resource, opts);
}

/** The counters of an informer built by `newInformer` (undefined for any other collection). */
export function informerStats(c: Collection<unknown>): Readonly<InformerStats> | undefined {
  return c instanceof InformerCollection ? c.stats : undefined;
}
