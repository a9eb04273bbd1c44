// Canonical JSON: comparing values in tests regardless of property order.

/** JSON with sorted object keys: a canonical form for comparing values regardless of property order. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/** Each value in canonical form, sorted: a list compared as a multiset. */
export const canonicalList = (xs: readonly unknown[]): string[] => xs.map(canonical).sort();
