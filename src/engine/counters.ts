// What a collection has done since it was built: bumped in place by the engine, read whenever someone asks.
import type { Event } from '../core/event.js';
import { DurationHistogram, TRANSACTION_BUCKETS } from './durationHistogram.js';

/**
 * @internal The counters every collection keeps. Plain fields, so that the hot path pays an increment and
 * nothing more; `collectionStats` and metrics read them when asked, never on the event path.
 */
export class CollectionCounters {
  /** Batches committed. */
  batches = 0;
  /** Events committed (a source read by derived collections alone may commit a key twice in one batch). */
  events = 0;
  /** Of `events`, those counted by type: only while `countEventTypes` is on (metrics ask for it). */
  adds = 0;
  updates = 0;
  deletes = 0;
  /** Transform runs (derived collections only). */
  recomputations = 0;
  /** Errors reported on `errors$`. */
  errors = 0;
  /** Sampled transform durations (derived collections, while metrics are collected). */
  transformSeconds: DurationHistogram | undefined = undefined;
}

/** One transform run in this many is timed while metrics are collected (a power of two, less one). */
export const TRANSFORM_SAMPLE_MASK = 15;

/**
 * @internal Whether derived collections time a sample of their transform runs. Off until metrics are
 * collected: reading the clock twice per run is not free.
 */
export let sampleTransformTimes = false;

/** @internal Records one sampled transform run. */
export function recordTransformTime(counters: CollectionCounters, seconds: number): void {
  (counters.transformSeconds ??= new DurationHistogram(TRANSACTION_BUCKETS)).observe(seconds);
}

/**
 * @internal Whether batches are also counted by event type. Off until metrics are collected: it costs a pass
 * over each batch, which a program that never scrapes should not pay.
 */
export let countEventTypes = false;
let typeCountingUsers = 0;

/** @internal Turns counting by type (and transform timing) on until the returned function is called (each caller once). */
export function countEventTypesWhile(): () => void {
  typeCountingUsers++;
  countEventTypes = sampleTransformTimes = true;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    countEventTypes = sampleTransformTimes = --typeCountingUsers > 0;
  };
}

/** @internal Counts a batch that nobody reads (so none was built), as `emit` would have: none when it is empty. */
export function countUnreadBatch(counters: CollectionCounters, adds: number, updates: number, deletes: number): void {
  const n = adds + updates + deletes;
  if (n === 0) return;
  counters.batches++;
  counters.events += n;
  if (!countEventTypes) return;
  counters.adds += adds;
  counters.updates += updates;
  counters.deletes += deletes;
}

/** @internal Adds a committed batch's events to the per-type counters. */
export function countByType(counters: CollectionCounters, events: readonly Event<unknown>[]): void {
  for (let i = 0; i < events.length; i++) {
    const type = events[i]!.type;
    if (type === 'add') counters.adds++;
    else if (type === 'update') counters.updates++;
    else counters.deletes++;
  }
}
