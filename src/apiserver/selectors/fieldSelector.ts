// Field selectors: `field=value`, `field==value`, `field!=value`, comma = AND, with `\` escapes.
import { isJsonObject, type JsonObject } from '../apimachinery/json.js';
import { badRequest } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';

/** One term of a field selector. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A parsed field selector: the AND of its terms. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  /** Whether an object whose selectable fields have these values is selected. */
  matches(fields: Readonly<Record<string, string>>): boolean;
}

/** Fields every resource supports, as on a real server. */
export const COMMON_SELECTABLE_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/**
 * Parses a `fieldSelector` query value. `supported` lists the field names the resource accepts;
 * any other field is `400 field label not supported`, as on a real server.
 *
 * @throws StatusError `400 BadRequest` for a malformed term or unsupported field.
 */
export function parseFieldSelector(text: string, supported: readonly string[] = COMMON_SELECTABLE_FIELDS): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(text, ',')) {
    if (term.trim() === '') continue;
    const parsed = splitTerm(term);
    if (!parsed) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = unescape(parsed.field.trim());
    if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`);
    requirements.push({ field, operator: parsed.operator, value: unescape(parsed.value) });
  }
  return {
    requirements,
    matches: (fields) => requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '=')),
  };
}

/**
 * The values of the selectable fields of an object (missing fields read as `''`, so `spec.nodeName=`
 * selects unscheduled pods as on a real server).
 */
export function selectableFieldValues(rt: ResourceType, obj: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of [...COMMON_SELECTABLE_FIELDS, ...rt.selectableFields]) {
    let cur: unknown = obj;
    for (const part of field.split('.')) cur = isJsonObject(cur) ? cur[part] : undefined;
    out[field] = cur === undefined || cur === null ? '' : String(cur);
  }
  return out;
}

// The operators in the order apimachinery tries them at each position: `!=` before `==` before `=`.
function splitTerm(term: string): { field: string; operator: '=' | '!='; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) {
        return { field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', value: term.slice(i + op.length) };
      }
    }
  }
  return undefined;
}

function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}
