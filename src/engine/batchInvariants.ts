// Strict mode's check of a batch a collection is about to commit.
import type { Event } from '../core/event.js';

/**
 * @internal The first thing wrong with a batch, or undefined: every event is well formed and filed under its
 * object's key, a key comes once (unless `repeatsKeys`), and no update is between equal values (unless
 * `equalUpdates`: sources may emit those, `updateObject` always emits).
 */
export function batchInconsistency<T>(
  collection: string,
  keyOf: (o: unknown) => string,
  eq: (a: T, b: T) => boolean,
  events: readonly Event<T>[],
  keys: readonly string[],
  repeatsKeys: boolean,
  equalUpdates: boolean,
): string | undefined {
  const name = JSON.stringify(collection);
  if (keys.length !== events.length) return `collection ${name} emitted ${events.length} events with ${keys.length} keys`;
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const key = keys[i]!;
    if (seen.has(key) && !repeatsKeys) return `collection ${name} emitted two events for key ${JSON.stringify(key)} in one batch`;
    seen.add(key);
    for (const o of [e.old, e.new]) {
      if (o !== undefined && keyOf(o) !== key) {
        return `collection ${name} emitted an event for ${JSON.stringify(keyOf(o))} under key ${JSON.stringify(key)}`;
      }
    }
    const ok =
      e.type === 'add' ? e.new !== undefined : e.type === 'delete' ? e.old !== undefined : e.old !== undefined && e.new !== undefined;
    if (!ok) return `collection ${name} emitted a malformed ${e.type} event`;
    if (e.type === 'update' && !equalUpdates && eq(e.old!, e.new!)) {
      return `collection ${name} emitted an update between equal values for key ${JSON.stringify(keyOf(e.new))}`;
    }
  }
  return undefined;
}
