// Change events: what every collection emits and every handler receives.

/** The kind of change an {@link Event} describes. */
export type EventType = 'add' | 'update' | 'delete';

/**
 * One change to one key of a collection.
 * `add` carries `new`; `delete` carries `old`; `update` carries both.
 */
export interface Event<T> {
  /** What happened to the key. */
  readonly type: EventType;
  /** The object before the change (`update`, `delete`). */
  readonly old?: T;
  /** The object after the change (`add`, `update`). */
  readonly new?: T;
}

/** The object an event leaves behind, or for a delete the object it removed: `e.new ?? e.old`. */
export function latest<T>(e: Event<T>): T {
  return (e.new !== undefined ? e.new : e.old) as T;
}

/** `[old, new]` without the missing ones, old first. */
export function items<T>(e: Event<T>): T[] {
  const out: T[] = [];
  if (e.old !== undefined) out.push(e.old);
  if (e.new !== undefined) out.push(e.new);
  return out;
}
