// The options and counters of newInformer.
import type { SchedulerLike } from 'rxjs';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { CollectionOptions } from '../core/types.js';
import type { BackoffPolicy } from './backoff.js';
import type { InformerState } from './informerMachine.js';

/** Options of `newInformer` beyond the common collection options. */
export interface InformerOptions extends CollectionOptions {
  /** When buffered watch events are applied (a burst is one transaction). Default `asapScheduler`. */
  scheduler?: SchedulerLike;
  /**
   * Where every timer of the informer runs: backoff waits, request timeouts, the watch timeout, the
   * watch-health timer, the probe for a missing resource. Default `asyncScheduler`; a `VirtualTimeScheduler`
   * (or `TestScheduler`) drives them all in virtual time.
   */
  timerScheduler?: SchedulerLike;
  /**
   * Applied to each object (after `stripServerFields`) before it is stored; it must keep `metadata` (name,
   * namespace, resourceVersion), which the informer keys and compares by. An object it throws on is reported
   * on `errors$` and left as it was cached. Informers share a LIST and WATCH only with the same function.
   */
  transform?: (object: KubernetesObject) => KubernetesObject;
  /**
   * Drop `metadata.managedFields` and the `kubectl.kubernetes.io/last-applied-configuration` annotation
   * before storing (often most of an object's bytes, read by no controller). Default false.
   */
  stripServerFields?: boolean;
  /**
   * Ask for `PartialObjectMetadata` only (the `Accept` header of metadata-only clients): objects are
   * `{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata }`, without spec or status.
   */
  metadataOnly?: boolean;
  /**
   * When the LIST of a custom resource (an apiVersion with a group) answers 404 before any LIST succeeded,
   * the CRD is taken as not installed yet: the informer counts as synced and empty, and probes discovery
   * every `resourcePollMs` until the resource appears, then lists it. Default true; false reports the 404
   * on `errors$` and retries with backoff.
   */
  waitForResource?: boolean;
  /** How often a missing resource is looked for (discovery). Default 5 000 ms. */
  resourcePollMs?: number;
  /**
   * A watch that gets no answer, or no line (event or bookmark), for this long is ended and reopened from
   * where it stood, like a watch the server closed. Default 30 000 ms.
   */
  watchTimeoutMs?: number;
  /**
   * Share one LIST and WATCH with the other informers of this KubeConfig for the same resource, namespace,
   * selectors, shape (`metadataOnly`, `stripServerFields`, `transform`, `opaqueResourceVersions`),
   * `waitForResource` and schedulers. The feed takes the first user's other options (backoff, page size,
   * timeouts); each user keeps its own name, stop signal, key and equality. Default true.
   */
  shared?: boolean;
  /** Waits between retries: exponential from 100 ms, capped at 5 s, with equal jitter by default. */
  backoff?: BackoffPolicy;
  /**
   * How long a watch must stay open before the failures before it are forgotten and the backoff starts over.
   * A server that sends one event and then fails would otherwise be reconnected to every 100 ms. Default 10 000.
   */
  healthyWatchMs?: number;
  /** LIST page size. Default 500. */
  pageSize?: number;
  /**
   * Accept any string as a resourceVersion. Off by default: Kubernetes servers send decimal counters, and an
   * object or event carrying anything else is rejected, since watching from it would fail for ever. Turn it
   * on only for an aggregated API server known to use another format.
   */
  opaqueResourceVersions?: boolean;
  /**
   * How long one request (each LIST page) may go without a complete answer before it is aborted, reported as
   * a `RequestTimeoutError` and retried with backoff. Default 60 000 ms. Watches are bounded by `watchTimeoutMs`.
   */
  requestTimeoutMs?: number;
  /**
   * Pages one LIST may take before it is abandoned with a `PaginationError` (then retried with backoff), so
   * a server that always answers with a `continue` token cannot keep the informer paging for ever. A token
   * the server sends twice abandons the LIST at once. Default 10 000.
   */
  maxListPages?: number;
}

/** Counters of one informer (see `informerStats`). */
export interface InformerStats {
  /** LISTs started (each may fetch many pages). */
  lists: number;
  /** WATCH requests started. */
  watches: number;
  /** ADDED, MODIFIED and DELETED events received. */
  watchEvents: number;
  /** BOOKMARK events received. */
  bookmarks: number;
  /** LISTs applied after the first one (after a 410 Gone, a refused watch or a failure). */
  relists: number;
  /** Failed LISTs and WATCHes, each reported on `errors$` and retried. */
  errors: number;
  /** Objects (LIST items, watch events, bookmarks) refused by admission; each is also reported on `errors$`. */
  rejected: number;
  /** Requests aborted by `requestTimeoutMs`. */
  timeouts: number;
  /** Where the informer's state machine is now. */
  state: InformerState['kind'];
}

/** Counters at zero, in `state`. */
export function initialStats(state: InformerState['kind']): InformerStats {
  return { lists: 0, watches: 0, watchEvents: 0, bookmarks: 0, relists: 0, errors: 0, rejected: 0, timeouts: 0, state };
}
