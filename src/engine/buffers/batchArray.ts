// Arrays for batches whose size is known up to a bound before they are filled.
//
// A batch built by `push` grows its backing store again and again, each time into fresh memory, and in a large
// burst every line it writes and abandons is a cache miss. Sized once, a batch writes what it keeps.

/**
 * Larger bounds grow by appending. V8 makes `new Array(n)` a dictionary (a hash table, slow to fill and to
 * read) for very large `n`, and a bound far above what a batch keeps would hold memory until it is trimmed.
 */
const LARGEST_PRESIZED = 1 << 20;

/**
 * @internal An empty array with room for `bound` elements, to be filled from index 0 in order; the caller
 * trims `length` to what it wrote. Presized arrays are of V8's "holey" kind, which reads as fast.
 */
export function batchArray<T>(bound: number): T[] {
  return bound <= LARGEST_PRESIZED ? (new Array(bound) as T[]) : [];
}
