// Label selectors: the full apimachinery grammar (`k=v`, `k==v`, `k!=v`, `in`, `notin`, `k`, `!k`, `>`, `<`).
import { badRequest } from '../apimachinery/statusError.js';

/** Operators of one requirement, after `=`/`==` are folded into `in` and `!=` into `notin`. */
export type LabelOperator = 'in' | 'notin' | 'exists' | 'doesnotexist' | 'gt' | 'lt';

/** One comma-separated clause of a selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed label selector: the AND of its requirements (none = matches everything). */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** Whether an object with these labels is selected. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

type Token =
  | { kind: 'id'; text: string }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '>' | '<' | '(' | ')' | ',' }
  | { kind: 'in' | 'notin' | 'end' };

const SPECIAL = '=!(),<>';
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Parses a `labelSelector` query value.
 *
 * @throws StatusError `400 BadRequest` (what a real server answers) for a malformed selector.
 * @example parseLabelSelector('app=web,tier in (a,b),!legacy').matches({ app: 'web', tier: 'a' }) // true
 */
export function parseLabelSelector(text: string): LabelSelector {
  const tokens = lex(text);
  const requirements: LabelRequirement[] = [];
  let i = 0;
  const peek = (): Token => tokens[i]!;
  const next = (): Token => tokens[i++]!;
  const fail = (msg: string): never => {
    throw badRequest(`unable to parse requirement: ${msg}`);
  };
  const describe = (t: Token): string => ('text' in t ? t.text : t.kind === 'end' ? '' : t.kind);

  if (peek().kind === 'end') return makeSelector(requirements);
  for (;;) {
    requirements.push(parseRequirement());
    const t = next();
    if (t.kind === 'end') break;
    if (!(t.kind === 'op' && t.text === ',')) fail(`found '${describe(t)}', expected: ',' or 'end of string'`);
  }
  return makeSelector(requirements);

  function parseRequirement(): LabelRequirement {
    let t = next();
    if (t.kind === 'op' && t.text === '!') {
      t = next();
      if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: identifier after '!'`);
      return requirement(t.text, 'doesnotexist', []);
    }
    if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: !, identifier, or 'end of string'`);
    const key = t.text;
    const op = peek();
    if (op.kind === 'end' || (op.kind === 'op' && op.text === ',')) return requirement(key, 'exists', []);
    next();
    if (op.kind === 'in' || op.kind === 'notin') return requirement(key, op.kind, parseSet());
    if (op.kind === 'op' && (op.text === '=' || op.text === '==' || op.text === '!=')) {
      return requirement(key, op.text === '!=' ? 'notin' : 'in', [parseSingleValue()]);
    }
    if (op.kind === 'op' && (op.text === '>' || op.text === '<')) {
      const value = parseSingleValue();
      if (!/^-?\d+$/.test(value)) fail(`for 'Gt', 'Lt' operators, the value must be an integer: '${value}'`);
      return requirement(key, op.text === '>' ? 'gt' : 'lt', [value]);
    }
    return fail(`found '${describe(op)}', expected: in, notin, =, ==, !=, gt, lt`);
  }

  function parseSingleValue(): string {
    const t = peek();
    // `k=` selects the empty value, as in apimachinery.
    if (t.kind === 'end' || (t.kind === 'op' && t.text === ',')) return '';
    next();
    if (t.kind !== 'id') return fail(`found '${describe(t)}', expected: identifier`);
    return t.text;
  }

  function parseSet(): string[] {
    const open = next();
    if (!(open.kind === 'op' && open.text === '(')) fail(`found '${describe(open)}', expected: '('`);
    const values: string[] = [];
    if (peek().kind === 'op' && (peek() as { text: string }).text === ')') {
      next();
      return fail("for 'in', 'notin' operators, values set can't be empty");
    }
    for (;;) {
      const t = peek();
      // Empty members (`(a,)`) are the empty string, as in apimachinery.
      if (t.kind === 'id') {
        values.push(t.text);
        next();
      } else values.push('');
      const sep = next();
      if (sep.kind === 'op' && sep.text === ')') return values;
      if (!(sep.kind === 'op' && sep.text === ',')) fail(`found '${describe(sep)}', expected: ',' or ')'`);
    }
  }

  function requirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    validateKey(key, fail);
    for (const v of values) {
      if (v.length > 63 || (v !== '' && !NAME.test(v))) fail(`invalid label value: "${v}"`);
    }
    return { key, operator, values };
  }
}

function validateKey(key: string, fail: (msg: string) => never): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    fail(`invalid label key "${key}": prefix part must be a DNS subdomain`);
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    fail(`invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.'`);
  }
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

function makeSelector(requirements: LabelRequirement[]): LabelSelector {
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matchRequirement(r, labels ?? {})),
  };
}

function matchRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && r.values.includes(value!);
    case 'notin':
      return !has || !r.values.includes(value!);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const a = Number(value);
      const b = Number(r.values[0]);
      return r.operator === 'gt' ? a > b : a < b;
    }
  }
}
