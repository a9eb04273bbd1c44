// Contenders' outputs in one canonical form, so that a scenario can check that they all computed the same thing.
//
// An output set is canonicalised object by object: JSON with sorted keys, every array sorted (no output of
// these scenarios gives its arrays a meaningful order: service names, addresses), and the objects' lines
// sorted. Two contenders agree when their strings are equal.

/** One value as canonical JSON: keys sorted, arrays sorted by their elements' canonical form. */
export function canonical(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  const rec = value as Record<string, unknown>;
  const keys = Object.keys(rec)
    .filter((k) => rec[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(rec[k])}`).join(',')}}`;
}

/** A whole output set: one canonical line per object, lines sorted. */
export function canonicalSet(values: Iterable<unknown>): string {
  const lines: string[] = [];
  for (const v of values) lines.push(canonical(v));
  return lines.sort().join('\n');
}

/**
 * Throws when `got` (a contender's canonical output set) differs from `want` (the baseline's), naming the
 * first line where they part and how many objects each has.
 */
export function assertSameOutputs(what: string, got: string, want: string): void {
  if (got === want) return;
  const g = got === '' ? [] : got.split('\n');
  const w = want === '' ? [] : want.split('\n');
  let i = 0;
  while (i < g.length && i < w.length && g[i] === w[i]) i++;
  throw new Error(
    `${what}: outputs differ from the baseline's (${g.length} objects against ${w.length}); first difference at line ${i}:\n` +
      `  got  ${g[i] ?? '(nothing)'}\n  want ${w[i] ?? '(nothing)'}`,
  );
}
