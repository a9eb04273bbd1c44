// The label and annotation rules kube-apiserver applies to every object's metadata on every write.
import { isJsonObject, type JsonObject } from '../apimachinery/json.js';
import { labelValueErrors, qualifiedNameErrors } from '../apimachinery/qualifiedName.js';
import { invalid, type FieldCause } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';

/** The most bytes all annotations of one object may take, keys and values together (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * Validates `metadata.labels` (qualified-name keys, values of at most 63 characters of the label alphabet) and
 * `metadata.annotations` (qualified-name keys, at most {@link TOTAL_ANNOTATION_SIZE_LIMIT} bytes in all). Their
 * values are strings already: {@link checkDecodable} refused anything else.
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
  if (causes.length > 0) throw invalid(rt.kind, String(obj.metadata.name ?? ''), causes, rt.group);
}

function invalidValue(field: string, value: string, message: string): FieldCause {
  return { field, message: `Invalid value: ${JSON.stringify(value)}: ${message}` };
}

function stringMap(v: unknown): Array<[string, string]> {
  return isJsonObject(v) ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
}
