// newInformer: a source collection kept in step with the API server by list + watch, recovering from any fault.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Collection } from '../core/types.js';
import { TransformError } from '../core/errors.js';
import { equals } from '../core/equals.js';
import { freezeInput } from '../core/freeze.js';
import { SourceNode } from '../engine/sourceNode.js';
import { trackInformer } from '../observe/liveComponents.js';
import { collectionPath, type ResourceRef } from './resourcePath.js';
import { initialStats, type InformerOptions, type InformerStats } from './informerOptions.js';
import type { InformerFeed } from './informerFeed.js';
import { resourceVersionOf, type FeedEvent, type FeedSink } from './feedSink.js';
import { feedFor } from './informerRegistry.js';

/** Two objects with a resourceVersion are the same object version exactly when the versions match. */
function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const ra = resourceVersionOf(a);
  const rb = resourceVersionOf(b);
  return ra !== undefined && rb !== undefined ? ra === rb : equals(a, b);
}

/** One user's collection over a (possibly shared) feed: its own name, keys, equality and lifetime. */
class InformerCollection<T extends KubernetesObject> extends SourceNode<T> implements FeedSink {
  /** Undefined when stopped before it started (its stop signal was already aborted). */
  private readonly feed: InformerFeed | undefined;

  constructor(kc: KubeConfig, ref: ResourceRef, opts: InformerOptions | undefined) {
    super({ equals: sameVersion, ...opts }, `Informer/${ref.kind}`, false);
    // Validates the ref before anything is shared or started.
    collectionPath(ref);
    this.start(opts);
    if (this.disposed) return;
    const feed = (this.feed = feedFor(kc, ref, opts));
    const resource = `${ref.apiVersion}/${ref.kind}`;
    this.leaveMetrics = trackInformer(() => {
      // Each collection counts what it delivered; the shared LISTs and WATCHes are counted once per feed.
      const { lists, relists, watches, bookmarks, errors } = feed.countsRequests(this) ? feed.stats : initialStats('listing');
      return { resource, collection: this, lists, relists, watches, bookmarks, errors };
    });
    feed.attach(this);
  }

  get stats(): InformerStats {
    return this.feed?.stats ?? initialStats('stopped');
  }

  reset(objects: Iterable<KubernetesObject>): void {
    const seen = new Set<string>();
    for (const object of objects) {
      const key = this.keyed(object as T, 'listed object without a usable key');
      if (key === undefined) continue;
      seen.add(key);
      const cur = this.state.get(key);
      if (cur === undefined || resourceVersionOf(cur) !== resourceVersionOf(object)) this.write(key, freezeInput(object as T), false);
    }
    // Every listed key is in the state now: only a state larger than the list holds keys to delete.
    if (this.state.size > seen.size) for (const key of [...this.state.keys()]) if (!seen.has(key)) this.write(key, undefined, false);
  }

  apply(events: readonly FeedEvent[]): void {
    for (const e of events) {
      const key = this.keyed(e.object as T, `watch ${e.type} event without a usable key`);
      if (key === undefined) continue;
      this.write(key, e.type === 'DELETED' ? undefined : freezeInput(e.object as T), false);
    }
  }

  synced(): void {
    this.markSynced();
  }

  failed(cause: unknown, key: string | undefined, message: string): void {
    this.reportError(new TransformError(this.name, key, cause, message));
  }

  /** The object's key in this collection (its own `key` option may throw), or undefined, reported. */
  private keyed(object: T, what: string): string | undefined {
    try {
      return this.keyOf(object);
    } catch (err) {
      this.failed(err, undefined, what);
      return undefined;
    }
  }

  /** Leaves the set of running informers that metrics read. */
  private leaveMetrics: (() => void) | undefined;

  protected override onDispose(): void {
    this.leaveMetrics?.();
    this.feed?.detach(this);
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
 * rest is kept; every request is bounded (`requestTimeoutMs`, `watchTimeoutMs`), and so is a LIST's paging.
 *
 * Informers of one KubeConfig for the same resource, namespace, selectors, shape (`metadataOnly`,
 * `stripServerFields`, `transform`) and schedulers share one LIST and WATCH (`shared: false` opts out): the
 * first one's feed options (backoff, page size, timeouts) apply to all, while each collection keeps its own
 * name, stop signal, key and equality; the feed stops with its last collection. A custom resource whose
 * CRD is not installed yet is synced and empty until it appears (`waitForResource`); a plural the guess
 * gets wrong is found by discovery.
 * Starts on construction; `stop` leaves the feed (closing the watch and aborting a LIST in flight when it
 * was the last user); the last state stays readable.
 * @example const pods = newInformer<V1Pod>(kc, { apiVersion: 'v1', kind: 'Pod' });
 */
export function newInformer<T extends KubernetesObject>(kc: KubeConfig, resource: ResourceRef, opts?: InformerOptions): Collection<T> {
  return new InformerCollection<T>(kc, resource, opts);
}

/**
 * The counters of an informer built by `newInformer` (undefined for any other collection). Informers
 * sharing a LIST and WATCH share their counters.
 */
export function informerStats(c: Collection<unknown>): Readonly<InformerStats> | undefined {
  return c instanceof InformerCollection ? c.stats : undefined;
}
