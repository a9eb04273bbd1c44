// A recompute trigger: lets a transform depend on state outside rxkrt and be rerun on demand.
import type { HandlerContext } from '../core/types.js';
import { fetch } from '../fetch/fetch.js';
import { newStatic, type StaticSingleton } from './newStatic.js';

/** Reruns every transform that called `markDependant` in its last run. */
export interface RecomputeTrigger {
  /** Reruns every dependant transform (in one transaction, or in the current `batch`). */
  triggerRecomputation(): void;
  /** Records that the running transform depends on this trigger. */
  markDependant(ctx: HandlerContext): void;
  /** For triggers built with `startSynced: false`: dependants stay unsynced until this is called. */
  markSynced(): void;
}

class Trigger implements RecomputeTrigger {
  private generation = 0;
  private readonly counter: StaticSingleton<number>;

  constructor(startSynced: boolean, name: string | undefined) {
    this.counter = newStatic<number>(0, { startSynced, name: name ?? 'RecomputeTrigger' });
  }

  triggerRecomputation(): void {
    // A fresh number every time, so equality never swallows the change.
    this.counter.set(++this.generation);
  }

  markDependant(ctx: HandlerContext): void {
    fetch(ctx, this.counter.asCollection());
  }

  markSynced(): void {
    this.counter.markSynced();
  }
}

/**
 * Builds a recompute trigger.
 * @example
 * const trigger = newRecomputeTrigger();
 * const out = newCollection(inputs, (ctx, i) => { trigger.markDependant(ctx); return lookupExternal(i); });
 * externalChanged$.subscribe(() => trigger.triggerRecomputation());
 */
export function newRecomputeTrigger(opts?: { startSynced?: boolean; name?: string }): RecomputeTrigger {
  return new Trigger(opts?.startSynced ?? true, opts?.name);
}
