// One LIST + WATCH of a resource, kept in step with the server by the informer's state machine, feeding every
// collection attached to it. Several `newInformer` calls may share one feed (see informerRegistry.ts).
import { asapScheduler, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { tryKeyOf } from '../core/keyOf.js';
import { mutate } from '../engine/transaction.js';
import { log } from '../core/logger.js';
import type { ResourceRef } from './resourcePath.js';
import { listAll } from './listAll.js';
import { ApiError } from './apiError.js';
import { RequestTimeoutError } from './requestTimeoutError.js';
import { retryAfterOf } from './retryAfter.js';
import { INITIAL_STATE, step, type InformerEffect, type InformerInput, type InformerState } from './informerMachine.js';
import { jitteredDelay } from './backoff.js';
import { initialStats, type InformerOptions, type InformerStats } from './informerOptions.js';
import { admissionFor, isDecimalResourceVersion, type Admission } from './admission.js';
import { RejectedObjectError } from './rejectedObjectError.js';
import { WatchConnection, watchEndInput, watchErrorInput } from './watchConnection.js';
import { shapeOf, type ObjectShape } from './objectShape.js';
import { ResourceLocation, explainNotFound } from './discovery.js';
import { FeedStore } from './feedStore.js';
import { resourceVersionOf, type FeedEvent, type FeedSink } from './feedSink.js';

/** Stops when its last sink detaches; `onIdle` lets the registry forget it. */
export class InformerFeed {
  private machine: InformerState = INITIAL_STATE;
  private readonly location: ResourceLocation;
  private readonly connection: WatchConnection;
  private readonly admit: Admission;
  private readonly shape: ObjectShape;
  private readonly flushScheduler: SchedulerLike;
  private readonly timerScheduler: SchedulerLike;
  private readonly sinks = new Set<FeedSink>();
  private timer: Subscription | undefined;
  /** Fires `watchHealthy` once the open watch has lasted `healthyWatchMs`. */
  private healthTimer: Subscription | undefined;
  /** Aborts the request in flight (on stop, or when a newer one replaces it). */
  private requestAbort: AbortController | undefined;
  private flushAction: Subscription | undefined;
  private buffer: FeedEvent[] = [];
  /** The objects as last applied, by their default key: what a sink attaching late starts from. */
  private readonly store = new FeedStore();
  private listedOnce = false;
  private isSynced = false;
  readonly stats: InformerStats = initialStats('listing');

  constructor(
    private readonly kc: KubeConfig,
    private readonly ref: ResourceRef,
    private readonly opts: InformerOptions | undefined,
    private readonly onIdle: () => void,
  ) {
    this.location = new ResourceLocation(ref);
    this.shape = shapeOf(ref, opts);
    this.admit = admissionFor(ref, { opaqueResourceVersions: opts?.opaqueResourceVersions, as: this.shape.as });
    this.flushScheduler = opts?.scheduler ?? asapScheduler;
    this.timerScheduler = opts?.timerScheduler ?? asyncScheduler;
    this.connection = new WatchConnection(
      kc,
      {
        opened: () => this.armHealthTimer(),
        event: (type, object) => this.onWatchEvent(type, object),
        done: (err) => {
          this.disarmHealthTimer();
          this.input(watchEndInput(err));
        },
      },
      { scheduler: this.timerScheduler, timeoutMs: opts?.watchTimeoutMs ?? 30_000, headers: this.shape.watchHeaders },
    );
    this.perform([{ kind: 'list' }]);
  }

  /** Attaches a sink: it gets the current state at once if there is one. */
  attach(sink: FeedSink): void {
    this.sinks.add(sink);
    if (!this.isSynced) return;
    mutate(() => {
      sink.reset(this.store.values());
      sink.synced();
    });
  }

  /** Detaches a sink; the last one out stops the feed. */
  detach(sink: FeedSink): void {
    if (!this.sinks.delete(sink) || this.sinks.size > 0) return;
    this.stop();
    this.onIdle();
  }

  /**
   * Whether `sink` carries the feed's request counters in metrics: the first attached one does, so that
   * collections sharing a feed do not count its LISTs and WATCHes once each.
   */
  countsRequests(sink: FeedSink): boolean {
    return this.sinks.values().next().value === sink;
  }

  /** Where LISTs and WATCHes go (the plural guessed, given, or found by discovery). */
  get path(): string {
    return this.location.path;
  }

  private stop(): void {
    this.input({ kind: 'stop' });
    // Pages not yet fetched are never asked for, and the request in flight is cut.
    this.requestAbort?.abort(new Error(`informer of ${this.path} stopped`));
    this.requestAbort = undefined;
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    this.buffer = [];
  }

  private input(i: InformerInput): void {
    const { state, effects } = step(this.machine, i, this.opts?.backoff, this.opts?.resourcePollMs);
    this.machine = state;
    this.stats.state = state.kind;
    this.perform(effects);
  }

  private perform(effects: readonly InformerEffect[]): void {
    for (const e of effects) {
      // A report reaches errors$ at once, whose subscriber may stop the feed's last collection: the retry timer
      // or LIST the step asked for after it would then outlive the feed.
      if (this.machine.kind === 'stopped' && e.kind !== 'closeWatch' && e.kind !== 'cancelWait') continue;
      switch (e.kind) {
        case 'list':
          this.startList();
          break;
        case 'probe':
          this.locate((where) => this.input({ kind: where === 'missing' ? 'resourceMissing' : 'resourceFound' }));
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
          this.fail(
            this.listedOnce ? e.error : explainNotFound(e.error, this.ref),
            undefined,
            `${e.during} of ${this.path} failed; retrying`,
          );
          break;
        case 'absent':
          this.onAbsent();
          break;
      }
    }
  }

  private fail(cause: unknown, key: string | undefined, message: string): void {
    for (const s of this.sinks) s.failed(cause, key, message);
  }

  /** Whether a LIST 404 means "not installed yet" (a custom resource, waited for) rather than a failure. */
  private waitsForResource(): boolean {
    return this.ref.apiVersion.includes('/') && this.opts?.waitForResource !== false;
  }

  private request(): { signal: AbortSignal; timeoutMs: number; scheduler: SchedulerLike } {
    this.requestAbort?.abort();
    const abort = (this.requestAbort = new AbortController());
    return { signal: abort.signal, timeoutMs: this.opts?.requestTimeoutMs ?? 60_000, scheduler: this.timerScheduler };
  }

  private startList(): void {
    this.stats.lists++;
    const query = { labelSelector: this.ref.labelSelector, fieldSelector: this.ref.fieldSelector };
    const request = { ...this.request(), accept: this.shape.listAccept };
    const abort = this.requestAbort;
    listAll(this.kc, this.path, { query, pageSize: this.opts?.pageSize ?? 500, maxPages: this.opts?.maxListPages ?? 10_000, request }).then(
      (result) => {
        if (this.requestAbort !== abort) return;
        this.requestAbort = undefined;
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
          this.fail(err, undefined, `applying the list of ${this.path} failed`);
        }
        this.input({ kind: 'listed', resourceVersion: result.resourceVersion });
      },
      (error: unknown) => {
        if (this.requestAbort !== abort) return;
        this.requestAbort = undefined;
        if (error instanceof RequestTimeoutError) this.stats.timeouts++;
        if (this.machine.kind !== 'listing') return;
        const failed = (): void => this.input({ kind: 'listFailed', error, retryAfterMs: retryAfterOf(error) });
        if (!(error instanceof ApiError && error.statusCode === 404 && !this.listedOnce)) return failed();
        // Not found: the plural may be irregular (discovery knows it), or the resource not installed yet.
        this.locate((where) => {
          if (where === 'moved') this.startList();
          else if (where === 'missing' && this.waitsForResource()) this.input({ kind: 'resourceMissing' });
          else failed();
        });
      },
    );
  }

  /** The resource was not there: synced and empty until it is, as a collection of nothing yet. */
  private onAbsent(): void {
    if (this.isSynced) return;
    log().warn(
      { resource: this.path },
      `the server has no resource ${this.path} (apiVersion=${this.ref.apiVersion} kind=${this.ref.kind}) yet: synced as empty, waiting for it`,
    );
    this.isSynced = true;
    mutate(() => {
      for (const s of this.sinks) s.synced();
    });
  }

  /** Asks discovery where the resource is served (a discovery failure counts as `same`: no news). */
  private locate(then: (where: 'moved' | 'same' | 'missing') => void): void {
    const request = this.request();
    const abort = this.requestAbort;
    const settle = (where: 'moved' | 'same' | 'missing'): void => {
      if (this.requestAbort !== abort) return;
      this.requestAbort = undefined;
      if (this.machine.kind === 'stopped') return;
      then(where);
    };
    this.location.locate(this.kc, request).then(settle, () => settle('same'));
  }

  /** Applies a complete LIST as one transaction, diffed against the cache so missed deletes surface. */
  private applyList(items: readonly unknown[]): void {
    this.applyBuffered();
    const first = !this.listedOnce;
    this.listedOnce = true;
    if (!first) this.stats.relists++;
    log().info(
      { resource: this.path, objects: items.length, relist: !first },
      `informer of ${this.path} ${first ? 'listed' : 'relisted'} ${items.length} object(s)`,
    );
    const listed = new Map<string, KubernetesObject>();
    const keep = new Set<string>();
    for (const value of items) {
      const object = this.admitted(value, 'listed object', keep);
      if (object === undefined) continue;
      const key = tryKeyOf(object);
      // Admission saw a name: only a transform can have lost it.
      if (key === undefined) this.fail(new Error('no metadata.name'), undefined, 'listed object without a usable key');
      else listed.set(key, object);
    }
    this.store.replace(listed, keep);
    const syncing = !this.isSynced;
    this.isSynced = true;
    mutate(() => {
      for (const s of this.sinks) {
        s.reset(this.store.values());
        if (syncing || first) s.synced();
      }
    });
  }

  /**
   * The object, shaped, if admission accepts it; otherwise undefined, counted and reported (naming key and
   * value). `keep` learns the key of a rejected object that is still ours, so a relist keeps its cached version.
   */
  private admitted(value: unknown, what: string, keep?: Set<string>): KubernetesObject | undefined {
    const verdict = this.admit(value);
    if (verdict.ok) {
      try {
        // List items usually omit their type; the cache holds every object with it, as watch events carry it.
        return this.shape.stored(this.shape.typed(verdict.object));
      } catch (err) {
        // A transform that throws leaves the object as it was cached: the next version may go through.
        const key = tryKeyOf(verdict.object);
        if (key !== undefined) keep?.add(key);
        this.fail(err, key, `transform of ${what} threw`);
        return undefined;
      }
    }
    if (verdict.ours === true && verdict.key !== undefined) keep?.add(verdict.key);
    this.stats.rejected++;
    const error = new RejectedObjectError(this.path, verdict.key, value, verdict.reason);
    this.fail(error, verdict.key, `${what} rejected`);
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
    log().debug({ resource: this.path }, `informer watching ${this.path}`);
    this.connection.open(this.path, {
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
            this.fail(err, undefined, `applying watch events of ${this.path} failed`);
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
          this.fail(error, undefined, 'watch BOOKMARK rejected');
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
    this.store.apply(events);
    mutate(() => {
      for (const s of this.sinks) s.apply(events);
    });
  }
}
