// A secondary index over one collection's state, updated in the same step as the state itself.
import type { IndexHandle, InternalCollection } from '../core/internal.js';

let nextIndexUid = 1;
const NONE: readonly string[] = [];

/** @internal indexKey → (objectKey → object), maintained by the owning collection on every state write. */
export class IndexState<T> implements IndexHandle<T> {
  readonly uid = nextIndexUid++;
  private readonly groups = new Map<string, Map<string, T>>();

  constructor(
    readonly name: string,
    readonly source: InternalCollection<T>,
    private readonly extractFn: (o: T) => readonly string[],
    private readonly onError: (e: unknown, o: T) => void,
  ) {
    for (const v of source.values()) this.update(source.keyOf(v), undefined, v);
  }

  /** The index keys of `o`; an extract function that throws files the object under no key (and is reported). */
  extract(o: T): readonly string[] {
    try {
      return this.extractFn(o) ?? NONE;
    } catch (e) {
      this.onError(e, o);
      return NONE;
    }
  }

  get size(): number {
    return this.groups.size;
  }

  lookupValues(key: string): Iterable<T> {
    return this.groups.get(key)?.values() ?? NONE_ITER;
  }

  keys(): Iterable<string> {
    return this.groups.keys();
  }

  /** Moves one object between groups. */
  update(objectKey: string, old: T | undefined, next: T | undefined): void {
    const oldKeys = old === undefined ? NONE : this.extract(old);
    const newKeys = next === undefined ? NONE : this.extract(next);
    for (const k of oldKeys) {
      if (newKeys.includes(k)) continue;
      const g = this.groups.get(k);
      if (g === undefined) continue;
      g.delete(objectKey);
      if (g.size === 0) this.groups.delete(k);
    }
    if (next === undefined) return;
    for (const k of newKeys) {
      let g = this.groups.get(k);
      if (g === undefined) this.groups.set(k, (g = new Map()));
      g.set(objectKey, next);
    }
  }
}

const NONE_ITER: Iterable<never> = [];
