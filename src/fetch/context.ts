// The handler context a transform receives: it records what the transform fetched.
import { CONTEXT_BRAND, type HandlerContext } from '../core/types.js';
import { UsageError } from '../core/errors.js';
import type { Dependency } from './dependency.js';

/** @internal The context of one transform run. */
export class TransformContext implements HandlerContext {
  readonly [CONTEXT_BRAND] = true as const;
  readonly deps: Dependency[] = [];
  discarded = false;
  /** Set when the run is over: a context kept and used later would record into nothing. */
  closed = false;

  constructor(
    /** The collection running the transform. */
    readonly ownerUid: number,
    readonly ownerName: string,
    /** The input key being transformed (undefined for singletons). */
    readonly inputKey: string | undefined,
    /**
     * Vets a collection before the first read of it: throws when the owner may not read it (a cycle);
     * returns true when it may not have committed this transaction yet (see {@link StaleRead}).
     */
    private readonly checkSource?: (source: Dependency['source']) => boolean,
  ) {}

  /** Set when this run read a collection that may not have committed yet; its result must not be used. */
  stale = false;

  discardResult(): void {
    this.discarded = true;
  }

  record(dep: Dependency): void {
    if (this.closed) {
      throw new UsageError(
        `fetch of ${JSON.stringify(dep.source.name)} with the context of a transform of ${JSON.stringify(this.ownerName)} ` +
          'that has already returned: fetch only while the transform runs (not after an await)',
      );
    }
    if (dep.source.uid === this.ownerUid) {
      throw new UsageError(`collection ${JSON.stringify(this.ownerName)} cannot fetch from itself`);
    }
    if (this.checkSource?.(dep.source) === true) {
      // Record the dependency (so the owner ranks above the collection from now on) and abandon the run.
      this.deps.push(dep);
      this.stale = true;
      throw new StaleRead(dep.source.name);
    }
    this.deps.push(dep);
  }
}

/**
 * @internal Aborts a transform that fetches, mid-transaction, a collection ranked at or above its own
 * collection: that collection may not have committed this transaction's changes yet, so the run would read
 * stale state. The engine reruns the input once the collection has committed. Never reported to users.
 */
export class StaleRead extends Error {
  override readonly name = 'StaleRead';
  constructor(source: string) {
    super(`rxkrt internal: read of ${JSON.stringify(source)} before it committed; the transform will be rerun`);
  }
}

/** @internal Narrows a HandlerContext to the engine's own; rejects foreign objects. */
export function trackingContext(ctx: HandlerContext | undefined, fn: string): TransformContext {
  if (ctx instanceof TransformContext) return ctx;
  throw new UsageError(`${fn}() requires the HandlerContext passed to a transform, got ${ctx === undefined ? 'undefined' : typeof ctx}`);
}
