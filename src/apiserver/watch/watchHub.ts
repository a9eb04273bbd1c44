// Watch streams: initial events or replay, live events, bookmarks, timeouts, 410 both ways, and cutting.
import type { ServerResponse } from 'node:http';
import { StatusError, tooLargeResourceVersion } from '../apimachinery/statusError.js';
import { sendError } from '../apimachinery/jsonBodies.js';
import { CRD_STORAGE_KEY, crdStorageKey } from '../kinds/crdKinds.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { parseResourceVersion, type ListOptions } from '../objects/listOptions.js';
import type { ServerState } from '../state/serverState.js';
import { initialEvents, watchEventFor, type WatchEvent, type WatchFilter } from './watchEvents.js';
import { line, WatchStream, writeHeaders } from './watchStream.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How an expired watch (`resourceVersion` older than the history) is answered: `'status'` = HTTP 410
 * with a Status body; `'event'` = HTTP 200 and an in-stream `ERROR` event, then the end of the stream;
 * `'alternate'` = status, event, status, … across requests. Real servers do both, so clients must too.
 */
export type ExpiredWatchMode = 'status' | 'event' | 'alternate';

/** Watch behaviour that tests may tune. */
export interface WatchSettings {
  /** Period of BOOKMARK events when `allowWatchBookmarks=true`. */
  bookmarkIntervalMs: number;
  expired: ExpiredWatchMode;
  /** How many bytes may wait for one watch client before the server cuts its watch as too slow. */
  bufferBytes: number;
}

/** What the watch hub's counters say (`ApiServer.watchStats()`). */
export interface WatchStats {
  /** Open watch streams. */
  open: number;
  /** Bytes waiting for watch clients right now, over all streams. */
  bufferedBytes: number;
  /** The most bytes any one stream ever held back for its client. */
  peakStreamBufferedBytes: number;
  /** Watches cut because their client fell more than the budget behind. */
  endedTooSlow: number;
}

/**
 * Owns every open watch stream. It subscribes to the store once and hands each commit to each stream
 * synchronously, so no stream can miss a write between its initial events and its first live event.
 */
export class WatchHub {
  private readonly streams = new Set<WatchStream>();
  private expiredAnswers = 0;
  private endedTooSlow = 0;
  private peakStreamBufferedBytes = 0;
  private readonly unsubscribe: () => void;
  private readonly owner = {
    closed: (s: WatchStream) => {
      this.peakStreamBufferedBytes = Math.max(this.peakStreamBufferedBytes, s.peakBufferedBytes);
      this.streams.delete(s);
    },
    tooSlow: () => {
      this.endedTooSlow++;
    },
  };

  constructor(
    private readonly state: ServerState,
    private readonly settings: WatchSettings,
  ) {
    this.unsubscribe = state.store.subscribe((e) => {
      for (const s of [...this.streams]) s.deliverCommitted(e);
      // A deleted CRD takes its kind away: like a real server, end the watches on it (after they have
      // seen the DELETED events of its objects, which are committed before the CRD's own).
      if (e.type === 'DELETED' && e.storageKey === CRD_STORAGE_KEY) {
        const gone = crdStorageKey(e.object);
        for (const s of [...this.streams]) if (s.storageKey === gone) s.end();
      }
    });
  }

  /** How many watch streams are open. */
  get size(): number {
    return this.streams.size;
  }

  /** The hub's counters, for tests and benchmarks of slow clients. */
  stats(): WatchStats {
    let bufferedBytes = 0;
    let peak = this.peakStreamBufferedBytes;
    for (const s of this.streams) {
      bufferedBytes += s.bufferedBytes;
      peak = Math.max(peak, s.peakBufferedBytes);
    }
    return { open: this.streams.size, bufferedBytes, peakStreamBufferedBytes: peak, endedTooSlow: this.endedTooSlow };
  }

  /**
   * Serves `GET …?watch=true`: writes headers at once, then initial events (synthetic `ADDED`s for an
   * absent/`0` resourceVersion, else a replay from the history), a prompt BOOKMARK when asked, then
   * live events until `timeoutSeconds`, the client leaves, or {@link dropAll}.
   */
  serve(
    res: ServerResponse,
    rt: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    opts: ListOptions,
    view?: WatchFilter['view'],
  ): void {
    // A client that left while the request waited (an injected delay) would never fire 'close' again.
    if (res.destroyed) return;
    const filter: WatchFilter = { rt, namespace, name, opts, view };
    const store = this.state.store;
    let first: WatchEvent[];
    let after: number;
    try {
      if (opts.sendInitialEvents || opts.resourceVersion === undefined || opts.resourceVersion === '0') {
        first = initialEvents(filter, store.list(rt.storageKey, namespace));
        after = store.resourceVersion();
      } else {
        after = parseResourceVersion(opts.resourceVersion);
        // As for LIST: a version never issued would otherwise watch silently from a future that may never come.
        if (after > store.resourceVersion()) throw tooLargeResourceVersion(after, store.resourceVersion());
        first = store
          .eventsAfter(after)
          .map((e) => watchEventFor(filter, e))
          .filter((e): e is WatchEvent => e !== undefined);
      }
    } catch (e) {
      if (e instanceof StatusError && e.code === 410) return this.answerExpired(res, e);
      throw e;
    }
    const stream = new WatchStream(res, filter, after, this.state, this.settings.bufferBytes, this.owner);
    this.streams.add(stream);
    stream.open(first);
    if (opts.allowWatchBookmarks) {
      // With sendInitialEvents, the bookmark that ends the initial list carries this annotation (KEP-3157).
      stream.bookmark(opts.sendInitialEvents ? { 'k8s.io/initial-events-end': 'true' } : undefined);
      stream.every(this.settings.bookmarkIntervalMs, () => stream.bookmark());
    }
    // Capped at the longest timer node keeps: a longer one would fire at once instead (about 24.8 days is forever here).
    if (opts.timeoutSeconds !== undefined) stream.once(Math.min(opts.timeoutSeconds * 1000, MAX_TIMER_MS), () => stream.end());
  }

  /** Ends every open stream cleanly (clients see a normal end and reconnect with their last resourceVersion). */
  dropAll(): void {
    for (const s of [...this.streams]) s.end();
  }

  /**
   * Ends every open stream with an in-stream `ERROR` event carrying `error`'s `Status`, as a real server does
   * when its storage fails under a watch; clients must report it and watch again from their last resourceVersion.
   */
  failAll(error: StatusError): void {
    for (const s of [...this.streams]) s.fail(error);
  }

  /** Ends every stream and stops listening to the store. */
  close(): void {
    this.dropAll();
    this.unsubscribe();
  }

  private answerExpired(res: ServerResponse, error: StatusError): void {
    const mode = this.settings.expired;
    const asStatus = mode === 'status' || (mode === 'alternate' && this.expiredAnswers++ % 2 === 0);
    if (asStatus) return sendError(res, error);
    writeHeaders(res);
    res.end(line({ type: 'ERROR', object: error.toStatus() }));
  }
}
