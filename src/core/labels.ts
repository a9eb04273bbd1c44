// Label and selector accessors and the two subset predicates the filters are built from.

/** A label map (or a selector's matchLabels). */
export type Labels = Readonly<Record<string, string>>;

const EMPTY: Labels = Object.freeze({});

/** Labels of an object: `getLabels()` if present, else `metadata.labels`, else `labels`; else empty. */
export function labelsOf(o: unknown): Labels {
  if (o === null || typeof o !== 'object') return EMPTY;
  const r = o as { getLabels?: () => Labels | undefined; metadata?: { labels?: Labels }; labels?: Labels };
  if (typeof r.getLabels === 'function') return r.getLabels() ?? EMPTY;
  return r.metadata?.labels ?? r.labels ?? EMPTY;
}

/**
 * Selector of an object as a label map: `getLabelSelector()` if present, else `spec.selector`, else
 * `selector`; else empty. Of a `{ matchLabels, matchExpressions }` selector this is the `matchLabels` part
 * only: `labelSelectorOf` reads the whole selector, and the selector filters honour its expressions.
 */
export function selectorOf(o: unknown): Labels {
  return asLabelMap(rawSelectorOf(o));
}

/** @internal The selector an object carries, as it carries it (a label map, a LabelSelector, or undefined). */
export function rawSelectorOf(o: unknown): unknown {
  if (o === null || typeof o !== 'object') return undefined;
  const r = o as { getLabelSelector?: () => unknown; spec?: { selector?: unknown }; selector?: unknown };
  if (typeof r.getLabelSelector === 'function') return r.getLabelSelector();
  return r.spec?.selector ?? r.selector;
}

/** @internal A selector as its label map: a LabelSelector's `matchLabels`, a plain map itself, anything else empty. */
export function asLabelMap(s: unknown): Labels {
  if (s === null || typeof s !== 'object') return EMPTY;
  const sel = s as { matchLabels?: unknown; matchExpressions?: unknown };
  // A metav1.LabelSelector nests its map under matchLabels; a Service selector is the map itself.
  if ('matchLabels' in sel || 'matchExpressions' in sel) return (sel.matchLabels as Labels | undefined) ?? EMPTY;
  return s as Labels;
}

/** True when every entry of `subset` is in `superset`; an empty subset is contained in anything. */
export function isSubset(subset: Labels, superset: Labels): boolean {
  for (const k in subset) {
    if (superset[k] !== subset[k]) return false;
  }
  return true;
}

/** True when `selector` is non-empty and contained in `labels` (an empty selector selects nothing). */
export function selectsNonEmpty(selector: Labels, labels: Labels): boolean {
  // One pass (not an emptiness check and then isSubset): this runs for every candidate of every fetch.
  let empty = true;
  for (const k in selector) {
    if (labels[k] !== selector[k]) return false;
    empty = false;
  }
  return !empty;
}
