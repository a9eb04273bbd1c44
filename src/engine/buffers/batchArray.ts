// Arrays for batches whose size is known up to a bound before they are filled.
//
// A batch built by `push` grows its backing store about nine times on the way to 1000 events, each time into
// fresh memory: some 3,300 slots written for 1000 kept, and in a large burst each of those lines is a cache
// miss. Sized once, a batch writes what it keeps.

/**
 * Larger bounds grow by appending, as before. V8 makes `new Array(n)` a dictionary (a hash table, slow to
 * fill and to read) above 2^25 elements, and a bound far above what a batch keeps would hold 8 bytes per
 * unused slot until the batch is trimmed.
 */
const LARGEST_PRESIZED = 1 << 20;

/**
 * @internal An empty array with room for `bound` elements, to be filled from index 0 in order; the caller
 * trims `length` to what it wrote. Presized arrays are of V8's "holey" kind, which reads as fast.
 */
export function batchArray<T>(bound: number): T[] {
  return bound <= LARGEST_PRESIZED ? (new Array(bound) as T[]) : [];
}
