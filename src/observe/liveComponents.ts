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

interface Tracked<R> {
  readonly ref: WeakRef<object>;
  readonly read: () => R;
}

/** A weakly held set: a component dropped without being stopped leaves when it is garbage collected. */
class LiveSet<R> {
  private readonly items = new Set<Tracked<R>>();
  private readonly collected = new FinalizationRegistry<Tracked<R>>((t) => this.items.delete(t));

  track(owner: object, read: () => R): () => void {
    const t: Tracked<R> = { ref: new WeakRef(owner), read };
    this.items.add(t);
    this.collected.register(owner, t, t);
    return () => {
      this.items.delete(t);
      this.collected.unregister(t);
    };
  }

  read(): R[] {
    const out: R[] = [];
    for (const t of this.items) if (t.ref.deref() !== undefined) out.push(t.read());
    return out;
  }
}

const informers = new LiveSet<InformerReadings>();
const statusWriters = new LiveSet<StatusWriterReadings>();

/** @internal Adds a running informer; call the returned function when it stops. */
export function trackInformer(owner: object, read: () => InformerReadings): () => void {
  return informers.track(owner, read);
}

/** @internal Adds a running status writer; call the returned function when it stops. */
export function trackStatusWriter(owner: object, read: () => StatusWriterReadings): () => void {
  return statusWriters.track(owner, read);
}

/** @internal Readings of every running informer. */
export function informerReadings(): InformerReadings[] {
  return informers.read();
}

/** @internal Readings of every running status writer. */
export function statusWriterReadings(): StatusWriterReadings[] {
  return statusWriters.read();
}
