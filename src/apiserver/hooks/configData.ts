// The rules kube-apiserver applies to the keys and size of ConfigMap and Secret data.
import { isJsonObject } from '../apimachinery/json.js';
import { invalid, type FieldCause } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';
import type { StoredObject } from '../storage/storedObject.js';

/** The most bytes a ConfigMap's or Secret's data may take in all (1 MiB), as kube-apiserver allows. */
export const MAX_CONFIG_DATA_BYTES = 1024 * 1024;

const CONFIG_KEY = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY}$`);

/**
 * Validates the keys of `data` (and ConfigMap `binaryData`: no key in both) and the values' total size: at most
 * 1 MiB of decoded bytes. Runs after the Secret's `stringData` was folded into `data`.
 *
 * @throws StatusError `422 Invalid`: `ConfigMap "x" is invalid: data[a b]: Invalid value: "a b": a valid config key…`.
 */
export function validateConfigData(obj: StoredObject, rt: ResourceType): void {
  const secret = rt.kind === 'Secret';
  const causes: FieldCause[] = [];
  const data = isJsonObject(obj.data) ? obj.data : {};
  const binary = !secret && isJsonObject(obj.binaryData) ? obj.binaryData : {};
  let size = 0;
  for (const [field, map] of [
    ['data', data],
    ['binaryData', binary],
  ] as const) {
    for (const [key, value] of Object.entries(map)) {
      for (const m of configKeyErrors(key))
        causes.push({ field: `${field}[${key}]`, message: `Invalid value: ${JSON.stringify(key)}: ${m}` });
      const other = field === 'data' ? binary : data;
      if (key in other) {
        const message = `Invalid value: ${JSON.stringify(key)}: duplicate of key present in ${field === 'data' ? 'binaryData' : 'data'}`;
        causes.push({ field: `${field}[${key}]`, message });
      }
      const text = typeof value === 'string' ? value : '';
      size += secret || field === 'binaryData' ? Buffer.from(text, 'base64').length : Buffer.byteLength(text);
    }
  }
  if (size > MAX_CONFIG_DATA_BYTES) {
    causes.push({
      field: secret ? 'data' : '',
      message: `Too long: must have at most ${MAX_CONFIG_DATA_BYTES} bytes`,
      reason: 'FieldValueTooLong',
    });
  }
  if (causes.length > 0) throw invalid(rt.kind, obj.metadata.name, causes, rt.group);
}

function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!CONFIG_KEY_RE.test(key)) {
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_KEY}')`,
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}
