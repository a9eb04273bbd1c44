// The label and annotation rules kube-apiserver applies to every object's metadata on every write.
import { isJsonObject, stringsOf, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import { labelValueErrors, qualifiedNameErrors } from '../apimachinery/qualifiedName.js';
import { invalid, type FieldCause } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';

/** The most bytes all annotations of one object may take, keys and values together (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * Validates `metadata.labels` (qualified-name keys, values of at most 63 characters of the label alphabet),
 * `metadata.annotations` (qualified-name keys, at most {@link TOTAL_ANNOTATION_SIZE_LIMIT} bytes in all),
 * `metadata.ownerReferences` (apiVersion, kind, name and uid set; one controller at most; no Event as owner) and
 * `metadata.finalizers` (qualified names; not both `orphan` and `foregroundDeletion`). Label and annotation values
 * are strings already: {@link checkDecodable} refused anything else.
 *
 * @throws StatusError `422 Invalid` with one cause per bad key or value, as kube-apiserver words them.
 */
export function validateMetadata(rt: ResourceType, obj: JsonObject & { metadata: JsonObject }): void {
  const causes: FieldCause[] = [];
  const labels = stringMap(obj.metadata.labels);
  for (const [k, v] of labels) {
    for (const m of qualifiedNameErrors(k)) causes.push(invalidValue('metadata.labels', k, m));
    for (const m of labelValueErrors(v)) causes.push(invalidValue('metadata.labels', v, m));
  }
  const annotations = stringMap(obj.metadata.annotations);
  let size = 0;
  for (const [k, v] of annotations) {
    // Annotation keys may use upper case letters in the prefix too: kube lowercases before checking.
    for (const m of qualifiedNameErrors(k.toLowerCase())) causes.push(invalidValue('metadata.annotations', k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    causes.push({
      field: 'metadata.annotations',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
      reason: 'FieldValueTooLong',
    });
  }
  causes.push(...ownerReferenceCauses(obj.metadata.ownerReferences), ...finalizerCauses(obj.metadata.finalizers));
  if (causes.length > 0) throw invalid(rt.kind, String(obj.metadata.name ?? ''), causes, rt.group);
}

// Each reference names its owner completely; at most one is the controller; an Event owns nothing.
function ownerReferenceCauses(refs: JsonValue | undefined): FieldCause[] {
  const causes: FieldCause[] = [];
  const field = 'metadata.ownerReferences';
  let controller: string | undefined;
  for (const ref of Array.isArray(refs) ? refs.filter(isJsonObject) : []) {
    const apiVersion = String(ref.apiVersion ?? '');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (version === '') causes.push(invalidValue(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    for (const key of ['kind', 'name', 'uid']) {
      const value = String(ref[key] ?? '');
      if (value === '') causes.push(invalidValue(`${field}.${key}`, value, 'must not be empty'));
    }
    if (apiVersion === 'v1' && ref.kind === 'Event') {
      causes.push(invalidValue(field, JSON.stringify(ref), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`;
      if (controller === undefined) controller = current;
      else {
        const message = `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`;
        causes.push(invalidValue(field, JSON.stringify(refs), message));
      }
    }
  }
  return causes;
}

// Finalizers are qualified names; the two garbage collection policies exclude each other.
function finalizerCauses(finalizers: JsonValue | undefined): FieldCause[] {
  const names = stringsOf(finalizers);
  const causes = names.flatMap((f) => qualifiedNameErrors(f).map((m) => invalidValue('metadata.finalizers', f, m)));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    causes.push(invalidValue('metadata.finalizers', JSON.stringify(names), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

function invalidValue(field: string, value: string, message: string): FieldCause {
  return { field, message: `Invalid value: ${JSON.stringify(value)}: ${message}` };
}

function stringMap(v: unknown): Array<[string, string]> {
  return isJsonObject(v) ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
}
