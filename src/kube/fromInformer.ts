// fromInformer: a collection over an informer the application already runs (client-node's `makeInformer`).
import { asapScheduler, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Collection, CollectionOptions } from '../core/types.js';
import { TransformError } from '../core/errors.js';
import { equals } from '../core/equals.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import { SourceNode } from '../engine/sourceNode.js';
import { resourceVersionOf } from './feedSink.js';

/**
 * The part of a client-node informer `fromInformer` uses: `makeInformer`'s result fits, and so does any
 * object with this shape. `latestResourceVersion` (client-node's informers have it) tells when the first
 * LIST is in.
 */
export interface InformerLike<T extends KubernetesObject> {
  /** Every object the informer holds now. */
  list(): readonly T[];
  /** Calls `cb` with each object added, updated or deleted. */
  on(verb: 'add' | 'update' | 'delete', cb: (obj: T) => void): void;
  /** Calls `cb` when the informer fails (client-node then stops it) or (re)connects before a LIST or WATCH. */
  on(verb: 'error' | 'connect', cb: (err?: unknown) => void): void;
  /** Removes a callback given to `on`. */
  off(verb: 'add' | 'update' | 'delete', cb: (obj: T) => void): void;
  /** Removes a callback given to `on`. */
  off(verb: 'error' | 'connect', cb: (err?: unknown) => void): void;
  /** The resourceVersion of the last LIST or event: empty until the first LIST is in. */
  latestResourceVersion?(): string;
}

/** Options of `fromInformer`. */
export interface FromInformerOptions<T> extends CollectionOptions<T> {
  /**
   * Resolves once the informer's first LIST is in: pass `informer.start()` (client-node resolves it after
   * the LIST and the WATCH request). The collection is synced when it resolves, or earlier when the
   * informer's `latestResourceVersion()` shows a LIST is in.
   */
  synced?: PromiseLike<unknown>;
  /** When buffered callbacks are applied (one transaction per flush). Default `asapScheduler`. */
  scheduler?: SchedulerLike;
  /** Where the wait for the first LIST after a `connect` is paced. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
}

/** How often, after `connect`, `latestResourceVersion()` is read until the LIST it announced is in (ms). */
const LIST_CHECK_MS = 20;

type Change<T> = { readonly key: string; readonly value: T | undefined };

class WrappedInformer<T extends KubernetesObject> extends SourceNode<T> {
  private buffer: Change<T>[] = [];
  private flushAction: Subscription | undefined;
  private listCheck: Subscription | undefined;
  private readonly flushScheduler: SchedulerLike;
  private readonly timerScheduler: SchedulerLike;
  private readonly onUpsert = (obj: T): void => this.buffered(obj, false);
  private readonly onDelete = (obj: T): void => this.buffered(obj, true);
  private readonly onError = (err?: unknown): void =>
    this.reportError(new TransformError(this.name, undefined, err, 'the wrapped informer failed (client-node does not restart it)'));
  private readonly onConnect = (): void => this.awaitList();

  constructor(
    private readonly informer: InformerLike<T>,
    opts: FromInformerOptions<T> | undefined,
  ) {
    super({ equals: sameVersion, ...opts } as CollectionOptions<never>, 'Informer', false);
    this.flushScheduler = opts?.scheduler ?? asapScheduler;
    this.timerScheduler = opts?.timerScheduler ?? asyncScheduler;
    this.start(opts as CollectionOptions<never> | undefined);
    if (this.disposed) return;
    informer.on('add', this.onUpsert);
    informer.on('update', this.onUpsert);
    informer.on('delete', this.onDelete);
    informer.on('error', this.onError);
    informer.on('connect', this.onConnect);
    // What the informer holds now: all of it if it has listed, else whatever a LIST in progress added so far.
    mutate(() => {
      for (const obj of informer.list()) this.upsert(obj);
    });
    if (this.listed()) this.markSynced();
    opts?.synced?.then(
      () => this.syncNow(),
      (err: unknown) => this.onError(err),
    );
  }

  private listed(): boolean {
    const rv = this.informer.latestResourceVersion?.();
    return typeof rv === 'string' && rv !== '';
  }

  /** client-node fires `connect` just before its LIST: look until the LIST is in. */
  private awaitList(): void {
    // An informer may still call a callback it held when `stop` removed it: the check would outlive the collection.
    if (this.disposed || this.hasSynced() || this.listCheck !== undefined || this.informer.latestResourceVersion === undefined) return;
    this.listCheck = this.timerScheduler.schedule(this.checkListed, LIST_CHECK_MS);
  }

  private readonly checkListed = (): void => {
    this.listCheck = undefined;
    if (this.disposed || this.hasSynced()) return;
    if (this.listed()) this.syncNow();
    else this.listCheck = this.timerScheduler.schedule(this.checkListed, LIST_CHECK_MS);
  };

  private syncNow(): void {
    if (this.disposed) return;
    this.applyBuffered();
    this.markSynced();
  }

  private buffered(obj: T, deleted: boolean): void {
    // client-node calls a copy of its callbacks: one removed by `stop` meanwhile still gets this object.
    if (this.disposed) return;
    let key: string;
    try {
      key = this.keyOf(obj);
    } catch (err) {
      this.reportError(
        new TransformError(this.name, undefined, err, `informer ${deleted ? 'delete' : 'add/update'} of an object without a usable key`),
      );
      return;
    }
    this.buffer.push({ key, value: deleted ? undefined : obj });
    this.flushAction ??= this.flushScheduler.schedule(() => this.applyBuffered());
  }

  /** Applies the buffered callbacks as one transaction. */
  private applyBuffered(): void {
    this.flushAction?.unsubscribe();
    this.flushAction = undefined;
    if (this.buffer.length === 0) return;
    const changes = this.buffer;
    this.buffer = [];
    mutate(() => {
      for (const c of changes) this.write(c.key, c.value === undefined ? undefined : freezeInput(c.value), false);
    });
  }

  private upsert(obj: T): void {
    try {
      this.write(this.keyOf(obj), freezeInput(obj), false);
    } catch (err) {
      this.reportError(new TransformError(this.name, undefined, err, 'informer object without a usable key'));
    }
  }

  protected override onDispose(): void {
    this.informer.off('add', this.onUpsert);
    this.informer.off('update', this.onUpsert);
    this.informer.off('delete', this.onDelete);
    this.informer.off('error', this.onError);
    this.informer.off('connect', this.onConnect);
    this.flushAction?.unsubscribe();
    this.listCheck?.unsubscribe();
    this.buffer = [];
    super.onDispose();
  }
}

function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const ra = resourceVersionOf(a);
  const rb = resourceVersionOf(b);
  return ra !== undefined && rb !== undefined ? ra === rb : equals(a, b);
}

/**
 * A collection over an informer the application already runs, so it can adopt rxkrt one collection at a
 * time: client-node's `makeInformer` result, or anything with its `list`/`on`/`off` shape. It starts from
 * what the informer holds, turns `add`/`update`/`delete` callbacks into events (a burst, such as a LIST's
 * adds, is one transaction) and `error` callbacks into `errors$`. Synced once the informer's first LIST is
 * in: at once if it has listed already, when `synced` (pass `informer.start()`) resolves, or when
 * `latestResourceVersion()` shows it after a `connect`. The informer stays the application's: `stop`
 * removes the callbacks and never stops it (nor does it restart one that failed).
 * @example const pods = fromInformer(makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces()));
 */
export function fromInformer<T extends KubernetesObject>(informer: InformerLike<T>, opts?: FromInformerOptions<T>): Collection<T> {
  return new WrappedInformer<T>(informer, opts);
}
