// The options and counters of newInformer.
import type { SchedulerLike } from 'rxjs';
import type { CollectionOptions } from '../core/types.js';
import type { BackoffPolicy } from './backoff.js';
import type { InformerState } from './informerMachine.js';

/** Options of `newInformer` beyond the common collection options. */
export interface InformerOptions extends CollectionOptions {
  /** When buffered watch events are applied (a burst is one transaction). Default `asapScheduler`. */
  scheduler?: SchedulerLike;
  /** Where the informer's timers run: backoff waits, request timeouts, the watch-health timer. Default `asyncScheduler`. */
  timerScheduler?: SchedulerLike;
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
   * a `RequestTimeoutError` and retried with backoff. Default 60 000 ms. Watches are bounded by client-node,
   * which ends a watch that sends nothing for 30 s.
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
