// A workload's label selector as the text form a Scale's `status.selector` carries (what HPAs and `kubectl` parse).
import { isJsonObject, stringsOf, type JsonValue } from '../apimachinery/json.js';

/**
 * The text form of a selector: a `metav1.LabelSelector` (`matchLabels` and `matchExpressions`) or, for a
 * ReplicationController, a plain label map. Requirements are sorted by key and their values sorted, as apimachinery
 * prints them (`app=web,tier in (a,b),!legacy`); an absent or empty selector is `''`.
 *
 * @example selectorString({ matchLabels: { app: 'web' } }) // 'app=web'
 */
export function selectorString(selector: JsonValue | undefined): string {
  if (!isJsonObject(selector)) return '';
  const isLabelSelector = 'matchLabels' in selector || 'matchExpressions' in selector;
  const labels = isLabelSelector ? selector.matchLabels : selector;
  const terms: Array<[string, string]> = [];
  if (isJsonObject(labels)) for (const [k, v] of Object.entries(labels)) terms.push([k, `${k}=${String(v)}`]);
  const expressions = isLabelSelector && Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of expressions.filter(isJsonObject)) {
    const key = String(e.key ?? '');
    const values = stringsOf(e.values).sort();
    const op = String(e.operator ?? '');
    if (op === 'In') terms.push([key, `${key} in (${values.join(',')})`]);
    else if (op === 'NotIn') terms.push([key, `${key} notin (${values.join(',')})`]);
    else if (op === 'Exists') terms.push([key, key]);
    else if (op === 'DoesNotExist') terms.push([key, `!${key}`]);
  }
  // A stable sort by key keeps a key's matchLabels term before its expressions, as apimachinery orders them.
  return terms
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((t) => t[1])
    .join(',');
}
