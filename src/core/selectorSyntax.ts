// The label selector text grammar (`k=v`, `k==v`, `k!=v`, `in`, `notin`, `k`, `!k`, `>`, `<`) and the rules for keys and values.
//
// One parser for both halves of the project: rxkrt's `parseLabelSelector` and the embedded API server's
// `labelSelector` query parameter. It knows nothing of either's error types: it throws a
// `SelectorSyntaxError`, which each caller words its own way.

/** @internal Operators of one requirement, `=`/`==` folded into `in` and `!=` into `notin`. */
export type RequirementOperator = 'in' | 'notin' | 'exists' | 'doesnotexist' | 'gt' | 'lt';

/** @internal One comma-separated clause of a selector. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: RequirementOperator;
  readonly values: readonly string[];
  /** True for a requirement written `k=v` or `k==v` (an `in` of one value a label map can express). */
  readonly equality?: boolean;
}

/** Thrown for selector text (or a selector's key or value) that breaks the grammar; the message says where. */
export class SelectorSyntaxError extends Error {
  /** Always `'SelectorSyntaxError'`. */
  override readonly name = 'SelectorSyntaxError';
}

type Token =
  | { kind: 'id'; text: string }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '>' | '<' | '(' | ')' | ',' }
  | { kind: 'in' | 'notin' | 'end' };

const SPECIAL = '=!(),<>';
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INTEGER = /^-?\d+$/;

function fail(message: string): never {
  throw new SelectorSyntaxError(message);
}

/** @internal What is wrong with a label key (a qualified name: an optional DNS-subdomain prefix, a name), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `invalid label key ${JSON.stringify(key)}: prefix part must be a DNS subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, and be at most 63 characters`;
  }
  return undefined;
}

/** @internal What is wrong with a label value (empty, or a name of at most 63 characters), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || (value !== '' && !NAME.test(value))) {
    return `invalid label value ${JSON.stringify(value)}: must be empty or consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, and be at most 63 characters`;
  }
  return undefined;
}

/**
 * @internal Parses selector text into its requirements (none for blank text).
 * @throws SelectorSyntaxError for malformed text, an invalid key or value, or a non-integer `>`/`<` operand.
 */
export function parseRequirements(text: string): SelectorRequirement[] {
  const tokens = lex(text);
  const requirements: SelectorRequirement[] = [];
  let i = 0;
  const peek = (): Token => tokens[i]!;
  const next = (): Token => tokens[i++]!;

  if (peek().kind === 'end') return requirements;
  for (;;) {
    requirements.push(parseRequirement());
    const t = next();
    if (t.kind === 'end') return requirements;
    if (!isOp(t, ',')) fail(`found '${describe(t)}', expected: ',' or 'end of string'`);
  }

  function parseRequirement(): SelectorRequirement {
    let t = next();
    if (isOp(t, '!')) {
      t = next();
      if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: identifier after '!'`);
      return requirement(t.text, 'doesnotexist', []);
    }
    if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: !, identifier, or 'end of string'`);
    const key = t.text;
    const op = peek();
    if (op.kind === 'end' || isOp(op, ',')) return requirement(key, 'exists', []);
    next();
    if (op.kind === 'in' || op.kind === 'notin') return requirement(key, op.kind, parseSet(op.kind));
    if (isOp(op, '=') || isOp(op, '==')) return requirement(key, 'in', [parseSingleValue()], true);
    if (isOp(op, '!=')) return requirement(key, 'notin', [parseSingleValue()]);
    if (isOp(op, '>') || isOp(op, '<')) {
      const value = parseSingleValue();
      if (!INTEGER.test(value)) fail(`for 'Gt', 'Lt' operators, the value must be an integer: ${JSON.stringify(value)}`);
      return requirement(key, isOp(op, '>') ? 'gt' : 'lt', [value]);
    }
    return fail(`found '${describe(op)}', expected: in, notin, =, ==, !=, gt, lt`);
  }

  function parseSingleValue(): string {
    const t = peek();
    // `k=` selects the empty value, as in apimachinery.
    if (t.kind === 'end' || isOp(t, ',')) return '';
    next();
    if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: identifier`);
    return t.text;
  }

  function parseSet(operator: string): string[] {
    const open = next();
    if (!isOp(open, '(')) fail(`found '${describe(open)}', expected: '(' after '${operator}'`);
    if (isOp(peek(), ')')) fail(`for 'in', 'notin' operators, values set can't be empty`);
    const values: string[] = [];
    for (;;) {
      const t = peek();
      // An empty member (`(a,)`) is the empty string, as in apimachinery.
      if (t.kind === 'id') {
        values.push(t.text);
        next();
      } else values.push('');
      const sep = next();
      if (isOp(sep, ')')) return values;
      if (!isOp(sep, ',')) fail(`found '${describe(sep)}', expected: ',' or ')'`);
    }
  }
}

function requirement(key: string, operator: RequirementOperator, values: string[], equality = false): SelectorRequirement {
  const keyProblem = labelKeyProblem(key);
  if (keyProblem !== undefined) fail(keyProblem);
  for (const v of values) {
    const valueProblem = labelValueProblem(v);
    if (valueProblem !== undefined) fail(valueProblem);
  }
  return equality ? { key, operator, values, equality } : { key, operator, values };
}

function isOp(t: Token, text: string): boolean {
  return t.kind === 'op' && t.text === text;
}

function describe(t: Token): string {
  return 'text' in t ? t.text : t.kind === 'end' ? 'end of string' : t.kind;
}

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (SPECIAL.includes(c)) {
      // Two-character operators first: `==` and `!=`.
      const two = text.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two });
        i += 2;
        continue;
      }
      tokens.push({ kind: 'op', text: c as '=' });
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !SPECIAL.includes(text[j]!) && !/\s/.test(text[j]!)) j++;
    const word = text.slice(i, j);
    tokens.push(word === 'in' || word === 'notin' ? { kind: word } : { kind: 'id', text: word });
    i = j;
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

/** @internal Whether labels meet one requirement (gt/lt compare integers; a non-integer label fails both). */
export function meetsRequirement(r: SelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
      return !has || !r.values.includes(labels[r.key]!);
    case 'gt':
    case 'lt': {
      const value = has ? labels[r.key]! : '';
      if (!INTEGER.test(value)) return false;
      const a = Number(value);
      const b = Number(r.values[0]);
      return r.operator === 'gt' ? a > b : a < b;
    }
  }
}
