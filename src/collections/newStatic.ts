// newStatic: a single value set by hand.
import type { Collection, CollectionOptions } from '../core/types.js';
import { freezeInput } from '../core/freeze.js';
import { mutate } from '../engine/transaction.js';
import { SourceNode } from '../engine/sourceNode.js';
import type { Singleton } from '../core/types.js';
import { SingletonView, singletonKey } from './singleton.js';

/** A single optional value you set by hand. */
export interface StaticSingleton<T> extends Singleton<T> {
  /** Sets (or clears, with undefined) the value. Equal values emit nothing; a new key is a delete plus an add. */
  set(value: T | undefined): void;
  /** Marks the singleton synced (built with `startSynced: false`, it waits for this). */
  markSynced(): void;
}

/** @internal */
export class StaticSingletonNode<T> extends SourceNode<T> {
  constructor(initial: T | undefined, opts: (CollectionOptions<never> & { startSynced?: boolean }) | undefined) {
    super({ key: singletonKey, ...opts }, 'Static', opts?.startSynced ?? true);
    if (initial !== undefined && initial !== null) this.state.set(this.keptKey(this.keyOf(initial)), freezeInput(initial));
    this.start(opts);
  }

  set(value: T | undefined): void {
    const next = value === null || value === undefined ? undefined : freezeInput(value);
    const nextKey = next === undefined ? undefined : this.keyOf(next);
    mutate(() => {
      const curEntry = this.state.entries().next();
      const cur = curEntry.done === true ? undefined : curEntry.value;
      if (cur !== undefined && next !== undefined && cur[0] === nextKey && this.eq(cur[1], next)) return;
      if (cur !== undefined && cur[0] !== nextKey) this.write(cur[0], undefined, false);
      if (next !== undefined) this.write(nextKey!, next, false);
    });
  }
}

class StaticSingletonView<T> extends SingletonView<T> implements StaticSingleton<T> {
  constructor(private readonly node: StaticSingletonNode<T>) {
    super(node);
  }

  set(value: T | undefined): void {
    this.node.refuseIfStopped('set');
    this.node.set(value);
  }

  markSynced(): void {
    this.node.refuseIfStopped('markSynced');
    this.node.markSynced();
  }

  override asCollection(): Collection<T> {
    return this.node;
  }
}

/**
 * Builds a single value you set by hand; `startSynced: false` keeps it unsynced until `markSynced()`.
 * @example const mode = newStatic<string>('strict'); mode.set('lenient');
 */
export function newStatic<T>(initial: T | undefined, opts?: CollectionOptions<NoInfer<T>> & { startSynced?: boolean }): StaticSingleton<T> {
  return new StaticSingletonView<T>(new StaticSingletonNode<T>(initial, opts));
}
