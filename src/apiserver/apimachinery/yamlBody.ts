// YAML request bodies decoded to JSON values as kube-apiserver's YAML serializer does, within the JSON bodies' limits.
import { CST, Lexer, parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';
import { isJsonObject, type JsonObject } from './json.js';
import { MAX_JSON_DEPTH, valueTooDeep } from './jsonDepth.js';
import { badRequest } from './statusError.js';

// kube reads YAML with go-yaml v2, which follows YAML 1.1 (`yes`, `on` and `0777` are a boolean and an octal
// number). Timestamps stay strings, as they do there: a Date would come back re-formatted.
const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  // go-yaml v2 outside strict mode keeps the last of two equal keys.
  uniqueKeys: false,
  customTags: (tags) => tags.filter((t) => t !== 'timestamp' && (typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp')),
};

// Each alias counts the nodes it expands to, so a "billion laughs" document fails fast instead of growing.
const TO_JS_OPTIONS: ToJSOptions = { maxAliasCount: 100 };

/**
 * Decodes a YAML request body to a JSON object. A body that is JSON (it starts with `{`) is left to
 * `JSON.parse`, as kube hands JSON straight through; `undefined` stands for an empty body.
 *
 * @param what names the body in errors (`the body of the request`).
 * @throws StatusError `400` for YAML that does not parse, holds several documents, is not a mapping, nests
 *   deeper than {@link MAX_JSON_DEPTH} (before or after its aliases expand), expands its aliases too much, or
 *   holds values JSON has no form for (`.inf`, `.nan`, binary data).
 */
export function decodeYaml(text: string, what = 'the body of the request'): JsonObject | undefined {
  const fail = (why: string): never => {
    throw badRequest(`${what} could not be decoded as YAML: ${why}`);
  };
  // The parser recurses per level and slows down sharply on deep flow collections: measure the depth first,
  // with the lexer, which does neither.
  const depth = yamlDepthBound(text);
  if (depth > MAX_JSON_DEPTH) fail(`nesting exceeds the maximum depth of ${MAX_JSON_DEPTH}`);
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  if (!Array.isArray(docs) || docs.length === 0) return undefined; // only comments and directives
  if (docs.length > 1) fail(`it holds ${docs.length} documents; one object per request`);
  const doc = docs[0]!;
  if (doc.errors.length > 0) fail(doc.errors[0]!.message);
  let value: unknown;
  try {
    value = doc.toJS(TO_JS_OPTIONS) as unknown;
  } catch (e) {
    fail((e as Error).message);
  }
  if (value === null || value === undefined) return undefined;
  if (!isJsonObject(value))
    fail(`expected a mapping (an object), got ${Array.isArray(value) ? 'a sequence' : `the scalar ${JSON.stringify(value)}`}`);
  if (valueTooDeep(value, MAX_JSON_DEPTH)) fail(`nesting exceeds the maximum depth of ${MAX_JSON_DEPTH} once aliases are expanded`);
  const bad = nonJsonValue(value);
  if (bad !== undefined) fail(`${bad} has no JSON form`);
  return value as JsonObject;
}

/**
 * An upper bound of how deeply `text` nests: open flow brackets, plus on each line its indentation and the block
 * indicators (`-`, `?`, `:`) on it, since every block level needs one of the two.
 */
export function yamlDepthBound(text: string): number {
  let flow = 0;
  let line = 0;
  let max = 0;
  for (const token of new Lexer().lex(text)) {
    switch (CST.tokenType(token)) {
      case 'flow-map-start':
      case 'flow-seq-start':
        flow++;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flow = Math.max(0, flow - 1);
        break;
      case 'newline':
        line = 0;
        break;
      case 'space':
        if (line === 0) line = token.length;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
        line++;
        break;
      default:
        break;
    }
    max = Math.max(max, flow + line);
  }
  return max;
}

// Walked without recursion: the value is already known to be shallow, but this keeps the rule of the other walkers.
function nonJsonValue(root: unknown): string | undefined {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return String(v);
      continue;
    }
    if (Array.isArray(v)) pending.push(...(v as unknown[]));
    else if (isJsonObject(v) && Object.getPrototypeOf(v) === Object.prototype) pending.push(...Object.values(v));
    else return `a value of type ${typeof v === 'object' ? (v as object).constructor.name : typeof v}`;
  }
  return undefined;
}
