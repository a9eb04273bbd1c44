// DebugHandler: a registry of collections whose state can be dumped in krt's /debug/krtz shape.
import type { CollectionDump, DebugRegistry, DebugTarget } from '../core/types.js';

/** One collection in a dump. */
export interface DebugCollection {
  /** The collection's `uid`. */
  uid: number;
  /** The collection's `name`. */
  name: string;
  /** Its state at the time of the dump. */
  state: CollectionDump;
}

/**
 * Collections built with `{ debugger: handler }` register here and leave when their `stop` aborts.
 * @example const debug = new DebugHandler(); newCollection(pods, f, { debugger: debug }); JSON.stringify(debug.dump());
 */
export class DebugHandler implements DebugRegistry {
  private readonly collections = new Map<number, DebugTarget>();

  /** Adds a collection (called by collections built with this handler as their `debugger`). */
  register(c: DebugTarget): void {
    this.collections.set(c.uid, c);
  }

  /** Removes a collection (called when it stops). */
  unregister(c: DebugTarget): void {
    this.collections.delete(c.uid);
  }

  /** The registered collections' current state, ordered by uid (creation order). */
  dump(): DebugCollection[] {
    return [...this.collections.values()].sort((a, b) => a.uid - b.uid).map((c) => ({ uid: c.uid, name: c.name, state: c.dump() }));
  }

  /** How many collections are registered. */
  get size(): number {
    return this.collections.size;
  }

  /** The same as `dump()`, so `JSON.stringify(handler)` serves a debug endpoint. */
  toJSON(): DebugCollection[] {
    return this.dump();
  }
}
