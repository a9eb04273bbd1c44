// How deeply a JSON text or value nests, measured without recursion so a hostile depth cannot overflow the stack.

/**
 * The deepest nesting of objects and arrays the server accepts, in a request body or a stored object.
 *
 * kube-apiserver's decoder allows 10 000 levels, but Go grows its stacks; V8's stack is fixed (~1 MB), and
 * `structuredClone` already fails between 1 000 and 2 000 levels, before the handlers' own recursion
 * (equality, field sets) is counted. Real objects, CRD schemas included, stay under ~40 levels, so 500 keeps a
 * wide margin on both sides.
 */
export const MAX_JSON_DEPTH = 500;

/**
 * The byte offset where `text` first opens a level deeper than `max`, or `undefined` when it never does.
 * Brackets inside strings are skipped; the text need not be valid JSON (the parser reports that afterwards).
 */
export function textTooDeepAt(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** Whether `value` nests objects and arrays deeper than `max` (a JSON Patch can deepen a stored object). */
export function valueTooDeep(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [v, depth] = pending.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) pending.push([child, depth + 1]);
  }
  return false;
}
