// Change events: what every collection emits and every handler receives.

/** The kind of change an {@link Event} describes. */
export type EventType = 'add' | 'update' | 'delete';

/** An object appeared under its key. */
export interface AddEvent<T> {
  /** Always `'add'`. */
  readonly type: 'add';
  /** The object that appeared. */
  readonly new: T;
  /** Absent: nothing was there before. */
  readonly old?: undefined;
}

/** The object under a key changed from `old` to `new`. */
export interface UpdateEvent<T> {
  /** Always `'update'`. */
  readonly type: 'update';
  /** The object before the change. */
  readonly old: T;
  /** The object after the change. */
  readonly new: T;
}

/** The object under a key went away; `old` is what it was. */
export interface DeleteEvent<T> {
  /** Always `'delete'`. */
  readonly type: 'delete';
  /** The object that went away. */
  readonly old: T;
  /** Absent: nothing is there now. */
  readonly new?: undefined;
}

/**
 * One change to one key of a collection, discriminated by `type`: after `if (e.type === 'add')`, `e.new`
 * is a `T`. Code that reads `e.new ?? e.old` or `latest(e)` reads every kind alike.
 */
export type Event<T> = AddEvent<T> | UpdateEvent<T> | DeleteEvent<T>;

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
