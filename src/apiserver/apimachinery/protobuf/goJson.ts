// Decoded protobuf messages turned into the JSON a Go client would have sent for the same object.
import protobuf from 'protobufjs';
import type { JsonObject, JsonValue } from '../json.js';
import type { GoJsonOptions } from './protoSchema.js';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
// Types with a JSON form of their own in Go (a MarshalJSON method), by protobuf full name.
const TIME = `.${META}.Time`;
const MICRO_TIME = `.${META}.MicroTime`;
const FIELDS_V1 = `.${META}.FieldsV1`;
const QUANTITY = '.k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = '.k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = '.k8s.io.apimachinery.pkg.runtime.RawExtension';

// resource.Quantity's own syntax: a signed decimal number, then a suffix (binary, decimal SI or exponent).
const QUANTITY_SYNTAX = /^[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/** A field that cannot be turned into JSON; `path` is its JSON path in the object. */
export class GoJsonError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'GoJsonError';
  }
}

type Fields = Record<string, unknown>;

/**
 * The JSON object of a decoded message, as Go's encoding/json would write the typed object: JSON names,
 * `omitempty`, `null` for nil lists, maps and pointers without it, embedded structs inlined, fields in the Go
 * struct's order, and the JSON forms of Time, MicroTime, Quantity, IntOrString, RawExtension and FieldsV1.
 *
 * @throws GoJsonError for a value Go would refuse to decode or encode (a malformed Quantity, an
 *   IntOrString of unknown type, RawExtension bytes that are not JSON, a time outside years 1–9999).
 */
export function messageToGoJson(type: protobuf.Type, message: Fields, path = ''): JsonObject {
  const out: JsonObject = {};
  for (const field of type.fieldsArray) {
    const opts: GoJsonOptions = field.options ?? {};
    const present = hasOwn(message, field.name);
    const value = message[field.name];
    if (opts.inline) {
      Object.assign(out, messageToGoJson(field.resolvedType as protobuf.Type, present ? (value as Fields) : {}, path));
      continue;
    }
    const name = opts.json ?? field.name;
    const json = fieldToGoJson(field, opts, present, value, path ? `${path}.${name}` : name);
    if (json !== undefined) out[name] = json;
  }
  return out;
}

// undefined: the field is left out of the JSON object.
function fieldToGoJson(field: protobuf.Field, opts: GoJsonOptions, present: boolean, value: unknown, path: string): JsonValue | undefined {
  const nilJson = opts.omitempty ? undefined : null;
  if (field.map) {
    const entries = Object.entries((value ?? {}) as Fields);
    if (entries.length === 0) return nilJson;
    return Object.fromEntries(entries.map(([k, v]) => [k, elementToGoJson(field, v, `${path}[${k}]`)]));
  }
  if (field.repeated) {
    const items = (value ?? []) as unknown[];
    if (items.length === 0) return nilJson;
    return items.map((v, i) => elementToGoJson(field, v, `${path}[${i}]`));
  }
  if (!present) {
    // Absent: a nil pointer, a nil []byte, or the zero value of a plain field.
    if (opts.pointer || field.type === 'bytes') return nilJson;
    if (field.resolvedType instanceof protobuf.Type) return elementToGoJson(field, {}, path);
    return opts.omitempty ? undefined : zeroOf(field.type);
  }
  const json = elementToGoJson(field, value, path);
  if (opts.omitempty && !opts.pointer && isEmptyScalar(json, field)) return undefined;
  return json;
}

function elementToGoJson(field: protobuf.Field, value: unknown, path: string): JsonValue {
  const type = field.resolvedType;
  if (!(type instanceof protobuf.Type)) return scalarToGoJson(field.type, value, path);
  const special = specialToGoJson(type, value as Fields, path);
  return special !== undefined ? special : messageToGoJson(type, value as Fields, path);
}

function specialToGoJson(type: protobuf.Type, m: Fields, path: string): JsonValue | undefined {
  switch (type.fullName) {
    case TIME:
    case MICRO_TIME:
      return timeToJson(m, type.fullName === MICRO_TIME, path);
    case QUANTITY: {
      const text = typeof m.string === 'string' ? m.string : '';
      if (text === '') return '0';
      if (!QUANTITY_SYNTAX.test(text)) throw new GoJsonError(path, `quantity ${JSON.stringify(text)} is malformed`);
      return text;
    }
    case INT_OR_STRING: {
      const kind = toNumber(m.type ?? 0, path);
      if (kind === 0) return toNumber(m.intVal ?? 0, path);
      if (kind === 1) return typeof m.strVal === 'string' ? m.strVal : '';
      throw new GoJsonError(path, `IntOrString type ${kind} is neither 0 (int) nor 1 (string)`);
    }
    case RAW_EXTENSION:
      return rawJson(m.raw, path);
    case FIELDS_V1:
      return rawJson(m.Raw, path);
    default:
      return undefined;
  }
}

// metav1.Time keeps whole seconds (its protobuf decoding drops nanos); MicroTime keeps microseconds.
function timeToJson(m: Fields, micro: boolean, path: string): JsonValue {
  // An empty message is the zero time, which Go writes as null.
  if (!hasOwn(m, 'seconds') && !hasOwn(m, 'nanos')) return null;
  const seconds = toNumber(m.seconds ?? 0, path);
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
    throw new GoJsonError(path, `time of ${seconds} seconds since the epoch is outside years 1-9999`);
  }
  const whole = date.toISOString().slice(0, 19);
  if (!micro) return `${whole}Z`;
  const micros = Math.floor(toNumber(m.nanos ?? 0, path) / 1000);
  return `${whole}.${String(micros).padStart(6, '0')}Z`;
}

// RawExtension and FieldsV1 hold JSON text, written out as it is (nil is null).
function rawJson(raw: unknown, path: string): JsonValue {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8')) as JsonValue;
  } catch (e) {
    throw new GoJsonError(path, `raw bytes are not JSON: ${(e as Error).message}`);
  }
}

function scalarToGoJson(type: string, value: unknown, path: string): JsonValue {
  switch (type) {
    case 'string':
      return value as string;
    case 'bool':
      return value as boolean;
    case 'bytes':
      return Buffer.from(value as Uint8Array).toString('base64');
    default:
      return toNumber(value, path);
  }
}

// int64 arrives as a Long; Go writes it as an exact integer, which a JavaScript number holds up to 2^53.
function toNumber(value: unknown, path: string): number {
  if (typeof value === 'number') return value;
  const n = Number(String(value)); // a Long's decimal text is exact
  if (!Number.isSafeInteger(n)) throw new GoJsonError(path, `integer ${String(value)} does not fit a JSON number exactly`);
  return n;
}

// protobufjs sets a field on the decoded message only when it was on the wire; defaults live on the prototype.
function hasOwn(m: Fields, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(m, key);
}

function zeroOf(type: string): JsonValue {
  return type === 'string' ? '' : type === 'bool' ? false : 0;
}

function isEmptyScalar(json: JsonValue, field: protobuf.Field): boolean {
  if (field.resolvedType instanceof protobuf.Type) return false; // Go never counts a struct as empty
  return json === '' || json === 0 || json === false;
}
