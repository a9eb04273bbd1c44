// The handler context a transform receives: it records what the transform fetched.
import { CONTEXT_BRAND, type HandlerContext } from '../../core/types.js';
import { UsageError } from '../../core/errors.js';
import { depArray, depAt, depCount, depListOf, type DepList, type Dependency } from './dependency.js';

/** @internal What vets the collections a transform reads (see `TransformContext`). */
export interface SourceVetting {
  checkSource(source: Dependency['source']): boolean;
}

/** @internal The context of one transform run. */
export class TransformContext implements HandlerContext {
  readonly [CONTEXT_BRAND] = true as const;
  /**
   * What the last run of the same input fetched. A fetch identical to the previous run's fetch at the same
   * position reuses that record, and a run that fetched exactly what the last one did hands back the very
   * same array: the common rerun (a pod's IP changed) allocates nothing for its dependencies.
   */
  private previous: DepList = undefined;
  private previousCount = 0;
  /** Fetches recorded so far in this run. */
  private count = 0;
  /** The run's records once they stopped being a prefix of `previous` (undefined until then). */
  private diverged: Dependency[] | undefined = undefined;
  /** A run whose only record differs from the last run's keeps it here: no array for a single fetch. */
  private single: Dependency | undefined = undefined;
  discarded = false;
  /** Set when the run is over: a context kept and used later would record into nothing. */
  closed = false;

  constructor(
    /** The collection running the transform. */
    readonly ownerUid: number,
    readonly ownerName: string,
    /** The input key being transformed (undefined for singletons). */
    public inputKey: string | undefined,
    /**
     * Vets a collection before the first read of it: throws when the owner may not read it (a cycle);
     * returns true when it may not have committed this transaction yet (see {@link StaleRead}). An object
     * with a method rather than a closure: a closure per collection is a new call target for every graph,
     * and V8 drops the optimized code that inlined one when its graph is collected.
     */
    private readonly vetting?: SourceVetting,
    previous: DepList = undefined,
  ) {
    this.previous = previous;
    this.previousCount = depCount(previous);
  }

  /** Set when this run read a collection that may not have committed yet; its result must not be used. */
  stale = false;

  /**
   * Readies a closed context for the next run of its owner. The engine reuses one context per collection:
   * a context a transform kept stays closed between runs, and runs never nest within one collection.
   */
  reopen(inputKey: string | undefined, previous: DepList): void {
    this.inputKey = inputKey;
    this.previous = previous;
    this.previousCount = depCount(previous);
    this.count = 0;
    this.diverged = undefined;
    this.single = undefined;
    this.discarded = false;
    this.stale = false;
    this.closed = false;
  }

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
    if (this.vetting?.checkSource(dep.source) === true) {
      // Record the dependency (so the owner ranks above the collection from now on) and abandon the run.
      this.add(dep);
      this.stale = true;
      throw new StaleRead(dep.source.name);
    }
    this.add(dep);
  }

  /** What the previous run recorded at the position of the next fetch (a candidate for reuse). */
  candidate(): Dependency | undefined {
    return this.diverged === undefined && this.single === undefined && this.count < this.previousCount
      ? depAt(this.previous, this.count)
      : undefined;
  }

  /** What this run fetched, in order. */
  get deps(): DepList {
    if (this.diverged !== undefined) return this.diverged;
    if (this.single !== undefined) return this.single;
    if (this.count === this.previousCount) return this.previous;
    return depListOf(depArray(this.previous), this.count);
  }

  private add(dep: Dependency): void {
    const n = this.count++;
    if (this.diverged !== undefined) {
      this.diverged.push(dep);
    } else if (this.single !== undefined) {
      this.diverged = [this.single, dep];
      this.single = undefined;
    } else if (n >= this.previousCount || depAt(this.previous, n) !== dep) {
      // The run stopped repeating the last one: from here on it builds its own list.
      if (n === 0) this.single = dep;
      else this.diverged = [...depArray(this.previous).slice(0, n), dep];
    }
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
