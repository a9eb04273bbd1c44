// The default plural (resource name) of a kind, by the rules kubectl and the API contract use.

/**
 * Lower-case kind plus `s`; `y` becomes `ies`; `s`, `x`, `ch`, `sh` take `es`; `Endpoints` stays `endpoints`.
 *
 * @example defaultPlural('Policy') // 'policies'
 * @example defaultPlural('Box') // 'boxes'
 */
export function defaultPlural(kind: string): string {
  const singular = kind.toLowerCase();
  // Endpoints is already plural: the one irregular built-in.
  if (singular === 'endpoints') return singular;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(singular)) return `${singular}es`;
  return `${singular}s`;
}
