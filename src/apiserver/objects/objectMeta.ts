// Object identity and metadata rules shared by every write: type checks, names, generation.
import { randomInt } from 'node:crypto';
import { isJsonObject, jsonEqual, objectField, type JsonObject } from '../apimachinery/json.js';
import { MAX_JSON_DEPTH, valueTooDeep } from '../apimachinery/jsonDepth.js';
import { invalid, StatusError } from '../apimachinery/statusError.js';
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors, pathSegmentErrors } from '../apimachinery/qualifiedName.js';
import type { NameRule, ResourceType } from '../kinds/resourceType.js';
import { checkDecodable } from './checkDecodable.js';

/** Metadata fields only the server sets; on update they are carried over from the stored object. */
export const SERVER_METADATA = [
  'uid',
  'creationTimestamp',
  'generation',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
] as const;

// The alphabet apimachinery's generateName uses: no vowels, no look-alike characters.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Checks a request body against the URL's resource and returns a working copy with `apiVersion`
 * and `kind` filled in (clients may leave them out) and `metadata` guaranteed to be an object.
 *
 * @throws StatusError `400` when the body is not an object; `422 Invalid` when kind or apiVersion name
 *   another resource, or when it nests deeper than {@link MAX_JSON_DEPTH} (a patch result can, its body could not);
 *   `400` for values the decoder refuses (see {@link checkDecodable}).
 */
export function checkTypeMeta(rt: ResourceType, body: unknown, name = ''): JsonObject & { metadata: JsonObject } {
  if (!isJsonObject(body)) throw new StatusError(400, 'BadRequest', 'the request body must be a JSON object');
  // Before cloning: structuredClone itself overflows the stack on a deep enough object.
  if (valueTooDeep(body, MAX_JSON_DEPTH)) {
    throw invalid(
      rt.kind,
      name,
      [{ field: '<root>', message: `Invalid value: the object nests deeper than ${MAX_JSON_DEPTH} levels` }],
      rt.group,
    );
  }
  const obj = structuredClone(body);
  checkDecodable(rt, obj);
  const causes: Array<{ field: string; message: string }> = [];
  if (obj.apiVersion !== undefined && obj.apiVersion !== rt.groupVersion) {
    causes.push({ field: 'apiVersion', message: `Invalid value: ${JSON.stringify(obj.apiVersion)}: must be ${rt.groupVersion}` });
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    causes.push({ field: 'kind', message: `Invalid value: ${JSON.stringify(obj.kind)}: must be ${rt.kind}` });
  }
  if (obj.metadata !== undefined && !isJsonObject(obj.metadata))
    causes.push({ field: 'metadata', message: 'Invalid value: must be an object' });
  const metaName = isJsonObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : name;
  if (causes.length) throw invalid(rt.kind, metaName, causes, rt.group);
  obj.apiVersion = rt.groupVersion;
  obj.kind = rt.kind;
  if (!isJsonObject(obj.metadata)) obj.metadata = {};
  return obj as JsonObject & { metadata: JsonObject };
}

/**
 * Validates an object name by its kind's rule ({@link ResourceType.nameRule}): a DNS-1123 subdomain for most kinds,
 * a DNS-1123 label for Namespaces, a DNS-1035 label for Services, a path segment for the RBAC kinds.
 *
 * @throws StatusError `422 Invalid` with one `metadata.name` cause per broken rule, worded as kube-apiserver words it.
 */
export function validateName(rt: ResourceType, name: string): void {
  const errors = NAME_RULES[rt.nameRule](name);
  if (errors.length === 0) return;
  const causes = errors.map((m) => ({ field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${m}` }));
  throw invalid(rt.kind, name, causes, rt.group);
}

const NAME_RULES: Record<NameRule, (name: string) => string[]> = {
  subdomain: dns1123SubdomainErrors,
  label: dns1123LabelErrors,
  dns1035Label: dns1035LabelErrors,
  pathSegment: pathSegmentErrors,
};

/** `prefix` plus five random characters, as `metadata.generateName` produces. */
export function generatedName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return prefix + suffix;
}

/**
 * Whether a write changes what `metadata.generation` tracks: everything but `metadata` and `status` (for built-ins that
 * is `spec`, or top-level data such as a ConfigMap's `data`). Two kinds differ, as on a real server: a custom resource
 * without a status subresource counts its `status` too, and a Deployment counts its annotations (its controller copies
 * them to its ReplicaSets).
 */
export function specChanged(rt: ResourceType, before: JsonObject, after: JsonObject): boolean {
  const statusCounts = rt.custom && !rt.statusSubresource;
  const strip = (o: JsonObject): JsonObject => {
    const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = o;
    return statusCounts && status !== undefined ? { ...rest, status } : rest;
  };
  if (!jsonEqual(strip(before), strip(after))) return true;
  if (rt.group !== 'apps' || rt.kind !== 'Deployment') return false;
  const annotations = (o: JsonObject): JsonObject | undefined =>
    isJsonObject(o.metadata) ? objectField(o.metadata, 'annotations') : undefined;
  return !jsonEqual(annotations(before) ?? {}, annotations(after) ?? {});
}
