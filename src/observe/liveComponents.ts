// The informers and status writers that are running, for metrics to read at scrape time.
import type { InternalCollection } from '../engine/internalCollection.js';

/** @internal What metrics read of an informer: its collection (events by type) and its counters. */
export interface InformerReadings {
  /** `apiVersion/Kind` of what it watches. */
  readonly resource: string;
  readonly collection: InternalCollection<unknown>;
  readonly lists: number;
  readonly relists: number;
  readonly watches: number;
  readonly bookmarks: number;
  readonly errors: number;
}

/** @internal What metrics read of a status writer. */
export interface StatusWriterReadings {
  /** The collection whose statuses it writes. */
  readonly collection: string;
  readonly writes: number;
  readonly skipped: number;
  readonly conflicts: number;
  readonly failures: number;
  readonly queued: number;
}

/**
 * The running components of one kind, held until they stop. Strongly: a running informer is reachable from its
 * shared feed and a status writer from its collection's handler anyway, and each `read` closure holds its
 * owner. A WeakRef per owner would only keep it, once stopped, alive in V8's young generation until a full gc.
 */
class LiveSet<R> {
  private readonly reads = new Set<() => R>();

  /** `read` is the component's own closure (one per component), so it is the entry. */
  track(read: () => R): () => void {
    this.reads.add(read);
    return () => {
      this.reads.delete(read);
    };
  }

  read(): R[] {
    return Array.from(this.reads, (read) => read());
  }
}

const informers = new LiveSet<InformerReadings>();
const statusWriters = new LiveSet<StatusWriterReadings>();

/** @internal Adds a running informer; call the returned function when it stops. */
export function trackInformer(read: () => InformerReadings): () => void {
  return informers.track(read);
}

/** @internal Adds a running status writer; call the returned function when it stops. */
export function trackStatusWriter(read: () => StatusWriterReadings): () => void {
  return statusWriters.track(read);
}

/** @internal Readings of every running informer. */
export function informerReadings(): InformerReadings[] {
  return informers.read();
}

/** @internal Readings of every running status writer. */
export function statusWriterReadings(): StatusWriterReadings[] {
  return statusWriters.read();
}
