// The type errors kube-apiserver's decoder reports before any validation: fields typed as strings or bytes.
import { isJsonObject, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { badRequest } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';

/** A `map[string]string` field (`string`) or a `map[string][]byte` one (`bytes`: base64 in JSON). */
interface MapField {
  /** The field path from the object's root. */
  path: readonly string[];
  /** The Go struct the field belongs to, as the decoder names it. */
  struct: string;
  values: 'string' | 'bytes';
}

const METADATA_MAPS: readonly MapField[] = [
  { path: ['metadata', 'labels'], struct: 'ObjectMeta', values: 'string' },
  { path: ['metadata', 'annotations'], struct: 'ObjectMeta', values: 'string' },
];

// Built-in kinds only: custom resources are decoded as unstructured JSON and may hold anything there.
const KIND_MAPS: Readonly<Record<string, readonly MapField[]>> = {
  '/configmaps': [
    { path: ['data'], struct: 'ConfigMap', values: 'string' },
    { path: ['binaryData'], struct: 'ConfigMap', values: 'bytes' },
  ],
  '/secrets': [
    { path: ['data'], struct: 'Secret', values: 'bytes' },
    { path: ['stringData'], struct: 'Secret', values: 'string' },
  ],
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Refuses what kube-apiserver could not decode into its typed objects: a label, annotation, ConfigMap `data` or
 * Secret `stringData` value that is not a string, or a ConfigMap `binaryData` / Secret `data` value that is not
 * base64. A `null` value decodes as the empty string there, so it becomes one here.
 *
 * @throws StatusError `400 BadRequest`: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot
 *   unmarshal number into Go struct field ConfigMap.data of type string`.
 */
export function checkDecodable(rt: ResourceType, obj: JsonObject): void {
  const fields = [...METADATA_MAPS, ...(rt.custom ? [] : (KIND_MAPS[rt.storageKey] ?? []))];
  for (const f of fields) {
    const map = at(obj, f.path);
    if (map === undefined || map === null) continue;
    if (!isJsonObject(map))
      throw cannotDecode(
        rt,
        `json: cannot unmarshal ${jsonTypeOf(map)} into Go struct field ${goField(f)} of type map[string]${goType(f)}`,
      );
    for (const [k, v] of Object.entries(map)) {
      if (v === null) map[k] = '';
      else if (typeof v !== 'string') {
        throw cannotDecode(rt, `json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field ${goField(f)} of type ${goType(f)}`);
      } else if (f.values === 'bytes' && !BASE64.test(v)) {
        throw cannotDecode(rt, `illegal base64 data at input byte ${badBase64Offset(v)} (in ${f.path.join('.')}[${JSON.stringify(k)}])`);
      }
    }
  }
}

function at(obj: JsonObject, path: readonly string[]): JsonValue | undefined {
  let v: JsonValue | undefined = obj;
  for (const p of path) v = isJsonObject(v) ? v[p] : undefined;
  return v;
}

function cannotDecode(rt: ResourceType, why: string): Error {
  return badRequest(`${rt.kind} in version ${JSON.stringify(rt.version)} cannot be handled as a ${rt.kind}: ${why}`);
}

function goField(f: MapField): string {
  return `${f.struct}.${f.path.join('.')}`;
}

function goType(f: MapField): string {
  return f.values === 'string' ? 'string' : '[]uint8';
}

function jsonTypeOf(v: JsonValue | undefined): string {
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

// Where Go's decoder gives up: the first character outside the alphabet, else the unfinished last quantum.
function badBase64Offset(text: string): number {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  return bad >= 0 ? bad : text.length - (text.length % 4);
}
