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
  ) {}

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
    this.deps.push(dep);
  }
}

/** @internal Narrows a HandlerContext to the engine's own; rejects foreign objects. */
export function trackingContext(ctx: HandlerContext | undefined, fn: string): TransformContext {
  if (ctx instanceof TransformContext) return ctx;
  throw new UsageError(`${fn}() requires the HandlerContext passed to a transform, got ${ctx === undefined ? 'undefined' : typeof ctx}`);
}
