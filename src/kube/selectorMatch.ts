// Client-side checks of an informer's selectors, so an object the server should not have sent is caught.
//
// The server validated the selectors already; here they are read leniently, and whatever cannot be read
// (or a field that cannot be evaluated without the resource's schema) selects everything: a false
// rejection would lose a good object, which is worse than letting a bad one through.

/** Whether an object's labels / metadata satisfy a selector. */
export type Matcher<T> = (value: T) => boolean;

const selectAll = (): boolean => true;

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

/** A matcher for a `labelSelector` query value (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, `k>1`, `k<1`). */
export function labelSelectorMatcher(text: string | undefined): Matcher<Readonly<Record<string, string>> | undefined> {
  if (text === undefined || text.trim() === '') return selectAll;
  const requirements: Requirement[] = [];
  for (const clause of splitClauses(text)) {
    const r = parseRequirement(clause.trim());
    if (r === undefined) return selectAll;
    requirements.push(r);
  }
  return (labels) => requirements.every((r) => r(labels ?? {}));
}

/** A matcher for the `metadata.name` and `metadata.namespace` terms of a `fieldSelector`; other fields are not checked. */
export function fieldSelectorMatcher(text: string | undefined): Matcher<{ name?: unknown; namespace?: unknown }> {
  if (text === undefined || text.trim() === '' || text.includes('\\')) return selectAll;
  const terms: Array<(m: { name?: unknown; namespace?: unknown }) => boolean> = [];
  for (const term of text.split(',')) {
    const m = /^\s*metadata\.(name|namespace)\s*(!=|==|=)(.*)$/.exec(term);
    if (m === null) continue;
    const [, field, op, value] = m as unknown as [string, 'name' | 'namespace', string, string];
    terms.push((meta) => ((typeof meta[field] === 'string' ? meta[field] : '') === value) === (op !== '!='));
  }
  return (meta) => terms.every((t) => t(meta));
}

/** Splits on commas outside parentheses. */
function splitClauses(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

function parseRequirement(clause: string): Requirement | undefined {
  const has = (labels: Readonly<Record<string, string>>, k: string): boolean => Object.prototype.hasOwnProperty.call(labels, k);
  let m = /^!\s*([^\s=!<>(),]+)$/.exec(clause);
  if (m !== null) {
    const key = m[1]!;
    return (l) => !has(l, key);
  }
  m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(clause);
  if (m !== null) {
    const [key, op, list] = [m[1]!, m[2]!, m[3]!];
    const values = list.split(',').map((v) => v.trim());
    return op === 'in' ? (l) => has(l, key) && values.includes(l[key]!) : (l) => !has(l, key) || !values.includes(l[key]!);
  }
  m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(clause);
  if (m !== null) {
    const [key, op, value] = [m[1]!, m[2]!, m[3]!];
    if (op === '!=') return (l) => !has(l, key) || l[key] !== value;
    if (op === '>' || op === '<') {
      const bound = Number(value);
      return (l) => has(l, key) && /^-?\d+$/.test(l[key]!) && (op === '>' ? Number(l[key]) > bound : Number(l[key]) < bound);
    }
    return (l) => has(l, key) && l[key] === value;
  }
  m = /^([^\s=!<>(),]+)$/.exec(clause);
  if (m !== null) {
    const key = m[1]!;
    return (l) => has(l, key);
  }
  return undefined;
}
