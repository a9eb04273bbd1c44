// What reached a derived collection since its last flush: its parent's batches (unless the parent hands over
// its writes as they happen) and the batches of the collections its transforms fetched, held by reference
// until the flush reads them.
import type { Event } from '../../core/event.js';
import { ScratchList } from '../buffers/scratchList.js';
import type { DependencyIndex, TrackedInput } from './dependencyIndex.js';

/** @internal Takes the parent's events as inputs: each key with its value (undefined: deleted), in order. */
export interface InputSink {
  takeInput(key: string, value: unknown): void;
}

/** @internal The batches a derived collection received since its last flush, in the order they came. */
export class DerivedInbox {
  /** The parent's batches and their keys. */
  private readonly parentEvents = new ScratchList<readonly Event<unknown>[]>();
  private readonly parentKeys = new ScratchList<readonly string[]>();
  /** Batches of fetched collections: source uid, events and keys, side by side. */
  private readonly fetchedSources = new ScratchList<number>();
  private readonly fetchedEvents = new ScratchList<readonly Event<unknown>[]>();
  private readonly fetchedKeys = new ScratchList<readonly string[]>();

  fromParent(events: readonly Event<unknown>[], keys: readonly string[]): void {
    this.parentEvents.push(events);
    this.parentKeys.push(keys);
  }

  fromFetched(sourceUid: number, events: readonly Event<unknown>[], keys: readonly string[]): void {
    this.fetchedSources.push(sourceUid);
    this.fetchedEvents.push(events);
    this.fetchedKeys.push(keys);
  }

  /**
   * Hands every event of the parent's batches to `sink` as the input's new value, in order (a later event
   * overrides an earlier one, also in one batch, which a source read by derived collections alone does not
   * fold), and empties them.
   */
  drainParent(sink: InputSink): void {
    const batches = this.parentKeys.length;
    // Most flushes have batches of one kind alone: emptying the other's lists would be a call each.
    if (batches === 0) return;
    for (let b = 0; b < batches; b++) {
      const keys = this.parentKeys.at(b);
      const events = this.parentEvents.at(b);
      for (let i = 0; i < keys.length; i++) sink.takeInput(keys[i]!, events[i]!.new);
    }
    this.parentKeys.reset();
    this.parentEvents.reset();
  }

  /** Appends to `affected` the inputs the fetched collections' batches reach (see `collectAffected`), and empties them. */
  drainFetched<R extends TrackedInput>(deps: DependencyIndex<R>, affected: { push(r: R): void }): void {
    const batches = this.fetchedSources.length;
    if (batches === 0) return;
    for (let b = 0; b < batches; b++) {
      deps.collectAffected(this.fetchedSources.at(b), this.fetchedEvents.at(b), this.fetchedKeys.at(b), affected);
    }
    this.fetchedSources.reset();
    this.fetchedEvents.reset();
    this.fetchedKeys.reset();
  }

  /** Drops everything held (the collection was disposed). */
  clear(): void {
    this.parentKeys.reset();
    this.parentEvents.reset();
    this.fetchedSources.reset();
    this.fetchedEvents.reset();
    this.fetchedKeys.reset();
  }
}
