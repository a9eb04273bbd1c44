// Emptying a small Map or Set without V8 reallocating its hash table.
//
// Map#clear allocates a fresh table even for an empty or one-entry map. With one small transaction per
// event, the per-transaction maps of sources and derived collections were cleared thousands of times a
// second, and those clears took more time than the transforms (profile of bench B1, one transaction per
// update). Deleting a handful of keys keeps the table.

/** @internal Empties `m`: key by key when small, with `clear()` when large. */
export function clearMap<K, V>(m: Map<K, V> | Set<K>): void {
  if (m.size === 0) return;
  if (m.size > 32) m.clear();
  else for (const k of m.keys()) m.delete(k);
}
