// RecomputeProtected: data kept outside rxkrt that transforms read, paired with the trigger that reruns them.
import type { HandlerContext } from '../core/types.js';
import { newRecomputeTrigger, type RecomputeTrigger } from './newRecomputeTrigger.js';

/**
 * Data outside any collection, guarded so that a transform can only read it through `get(ctx)`, which
 * records the dependency: every change made through `modify` then reruns exactly the transforms that read it.
 */
export interface RecomputeProtected<T> {
  /** The data, marking the running transform as dependent on it. */
  get(ctx: HandlerContext): T;
  /**
   * Changes the data and reruns its readers: `fn` returns the new data, or changes it in place and returns
   * nothing. One transaction (or part of the current `batch`).
   */
  modify(fn: (data: T) => T | void): void;
  /** The data without recording a dependency: for code outside transforms, which nothing reruns. */
  accessUnprotected(): T;
  /** Reruns every reader, for a change made some other way. */
  triggerRecomputation(): void;
  /** For data built with `startSynced: false`: readers stay unsynced until this is called. */
  markSynced(): void;
}

class Protected<T> implements RecomputeProtected<T> {
  constructor(
    private data: T,
    private readonly trigger: RecomputeTrigger,
  ) {}

  get(ctx: HandlerContext): T {
    this.trigger.markDependant(ctx);
    return this.data;
  }

  modify(fn: (data: T) => T | void): void {
    const next = fn(this.data);
    if (next !== undefined) this.data = next;
    this.trigger.triggerRecomputation();
  }

  accessUnprotected(): T {
    return this.data;
  }

  triggerRecomputation(): void {
    this.trigger.triggerRecomputation();
  }

  markSynced(): void {
    this.trigger.markSynced();
  }
}

/**
 * Wraps `initial` so that transforms read it through `get(ctx)` and every `modify` reruns them (krt's
 * `NewRecomputeProtected`). Unlike krt's, `modify` works for any `T`: returning a value replaces the data.
 * @example
 * const allowed = newRecomputeProtected(new Set<string>(['prod']));
 * const visible = newCollection(namespaces, (ctx, ns) => (allowed.get(ctx).has(ns.metadata.name) ? ns : undefined));
 * allowed.modify((set) => void set.add('staging')); // staging appears
 */
export function newRecomputeProtected<T>(initial: T, opts?: { startSynced?: boolean; name?: string }): RecomputeProtected<T> {
  return new Protected(initial, newRecomputeTrigger({ startSynced: opts?.startSynced ?? true, name: opts?.name ?? 'RecomputeProtected' }));
}
