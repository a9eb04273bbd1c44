// Query parameters read as kube-apiserver's parameter codec reads them, and the write and delete options built from them.
import { isJsonObject, type JsonValue } from './json.js';
import { badRequest, invalid, type FieldCause } from './statusError.js';

/** `metav1.DeletionPropagation`: what happens to an object's dependents when it is deleted. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

/** `CreateOptions`, `UpdateOptions` and `PatchOptions` as a request carries them. */
export interface WriteQuery {
  /** `dryRun=All`: everything is checked and answered, nothing is stored. */
  dryRun: boolean;
  /** `fieldManager`, or `undefined` when absent or empty (the server then derives one). */
  fieldManager?: string;
}

/** `PatchOptions`: the write options plus `force`, which only server-side apply accepts. */
export interface PatchQuery extends WriteQuery {
  /** `force` as sent, `undefined` when absent (sending `force=false` on a merge patch is already an error). */
  force?: boolean;
}

/** `DeleteOptions`, from the request body when it has one, else from the query. */
export interface DeleteQuery {
  dryRun: boolean;
  gracePeriodSeconds?: number;
  /** The policy named by `propagationPolicy`, or by the deprecated `orphanDependents`. */
  propagationPolicy?: PropagationPolicy;
  preconditions?: { resourceVersion?: string; uid?: string };
}

/**
 * A boolean query parameter as the parameter codec reads it: absent is false; otherwise only its first value
 * counts, and every value but `0` and `false` (any case) is true, the empty value and Python's `True` included.
 */
export function queryBool(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * An int64 query parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`) as Go's `strconv.ParseInt(s, 10, 64)`
 * reads its first value: an optional sign and decimal digits, nothing else.
 *
 * @throws StatusError `400` naming the parameter and the value when it does not parse or leaves the int64 range.
 */
export function queryInt(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  return value === null ? undefined : parseInt64(value, name);
}

/**
 * A string query parameter: its first value, as the codec keeps it; absent and empty are both `undefined`,
 * which is how every string option of kube treats them.
 */
export function queryString(params: URLSearchParams, name: string): string | undefined {
  return params.get(name) || undefined;
}

/**
 * Whether the response is pretty-printed: `pretty` read as Go's `strconv.ParseBool` (an unparsable value is
 * false); when it is absent or empty, the User-Agent decides (curl, Wget and browsers get indented JSON).
 */
export function wantsPretty(params: URLSearchParams, userAgent: string | undefined): boolean {
  const value = params.get('pretty');
  if (value) return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/**
 * `CreateOptions` or `UpdateOptions` from the query.
 *
 * @throws StatusError `422 Invalid` (kind `kind` of `meta.k8s.io`) for a `dryRun` value other than `All` or a
 *   malformed `fieldManager`.
 */
export function parseWriteQuery(params: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions'): WriteQuery {
  const query = writeQuery(params);
  throwIfInvalid(kind, writeCauses(params.getAll('dryRun'), query.fieldManager));
  return query;
}

/**
 * `PatchOptions` from the query. Apply needs a `fieldManager`; every other patch type refuses `force`, even
 * `force=false`, since the server checks that it was sent at all.
 *
 * @throws StatusError `422 Invalid` (`PatchOptions.meta.k8s.io`) listing every broken rule.
 */
export function parsePatchQuery(params: URLSearchParams, isApply: boolean): PatchQuery {
  const query: PatchQuery = { ...writeQuery(params), force: params.has('force') ? queryBool(params, 'force') : undefined };
  const causes: FieldCause[] = [];
  if (isApply && query.fieldManager === undefined) {
    causes.push({ field: 'fieldManager', message: 'Required value: is required for apply patch', reason: 'FieldValueRequired' });
  }
  if (!isApply && query.force !== undefined) {
    causes.push({ field: 'force', message: 'Forbidden: may not be specified for non-apply patch', reason: 'FieldValueForbidden' });
  }
  throwIfInvalid('PatchOptions', [...causes, ...writeCauses(params.getAll('dryRun'), query.fieldManager)]);
  return query;
}

/**
 * `DeleteOptions`: decoded from `body` when the request has one (the query is then ignored, as on a real server),
 * else from the query parameters.
 *
 * @throws StatusError `400` for a body that is not a DeleteOptions or a malformed integer; `422 Invalid`
 *   (`DeleteOptions.meta.k8s.io`) for an unknown `propagationPolicy` or `dryRun` value, or for
 *   `propagationPolicy` together with `orphanDependents`.
 */
export function parseDeleteQuery(params: URLSearchParams, body: JsonValue | undefined): DeleteQuery {
  const raw = body === undefined ? deleteOptionsFromQuery(params) : deleteOptionsFromBody(body);
  const causes: FieldCause[] = [];
  if (raw.orphanDependents !== undefined && raw.propagationPolicy !== undefined) {
    causes.push({
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(raw.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (raw.propagationPolicy !== undefined && !(PROPAGATION_POLICIES as readonly string[]).includes(raw.propagationPolicy)) {
    causes.push(notSupported('propagationPolicy', raw.propagationPolicy, [...PROPAGATION_POLICIES, 'nil']));
  }
  causes.push(...dryRunCauses(raw.dryRun));
  throwIfInvalid('DeleteOptions', causes);
  const policy = raw.propagationPolicy as PropagationPolicy | undefined;
  return {
    dryRun: raw.dryRun.length > 0,
    gracePeriodSeconds: raw.gracePeriodSeconds,
    propagationPolicy: policy ?? (raw.orphanDependents === undefined ? undefined : raw.orphanDependents ? 'Orphan' : 'Background'),
    preconditions: raw.preconditions,
  };
}

interface RawDeleteOptions {
  dryRun: string[];
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { resourceVersion?: string; uid?: string };
}

function deleteOptionsFromQuery(params: URLSearchParams): RawDeleteOptions {
  return {
    dryRun: params.getAll('dryRun'),
    gracePeriodSeconds: queryInt(params, 'gracePeriodSeconds'),
    propagationPolicy: queryString(params, 'propagationPolicy'),
    orphanDependents: params.has('orphanDependents') ? queryBool(params, 'orphanDependents') : undefined,
  };
}

function deleteOptionsFromBody(body: JsonValue): RawDeleteOptions {
  if (!isJsonObject(body)) throw badRequest('the body of a DELETE must be a DeleteOptions object');
  const { dryRun, gracePeriodSeconds, propagationPolicy, orphanDependents, preconditions } = body;
  const fail = (field: string, want: string): never => {
    throw badRequest(`DeleteOptions.${field}: ${JSON.stringify(body[field])} is not ${want}`);
  };
  if (dryRun != null && !(Array.isArray(dryRun) && dryRun.every((v) => typeof v === 'string'))) fail('dryRun', 'a list of strings');
  if (gracePeriodSeconds != null && !Number.isSafeInteger(gracePeriodSeconds)) fail('gracePeriodSeconds', 'an integer');
  if (propagationPolicy != null && typeof propagationPolicy !== 'string') fail('propagationPolicy', 'a string');
  if (orphanDependents != null && typeof orphanDependents !== 'boolean') fail('orphanDependents', 'a boolean');
  if (preconditions != null && !isJsonObject(preconditions)) fail('preconditions', 'an object');
  const pre = isJsonObject(preconditions) ? preconditions : undefined;
  const text = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    dryRun: (dryRun as string[] | null | undefined) ?? [],
    gracePeriodSeconds: (gracePeriodSeconds as number | null | undefined) ?? undefined,
    // An empty policy is how Go's omitempty writes "not set".
    propagationPolicy: (propagationPolicy as string | null | undefined) || undefined,
    orphanDependents: (orphanDependents as boolean | null | undefined) ?? undefined,
    preconditions: pre ? { resourceVersion: text(pre.resourceVersion), uid: text(pre.uid) } : undefined,
  };
}

function writeQuery(params: URLSearchParams): WriteQuery {
  return { dryRun: params.getAll('dryRun').length > 0, fieldManager: queryString(params, 'fieldManager') };
}

function writeCauses(dryRun: string[], fieldManager: string | undefined): FieldCause[] {
  return [...fieldManagerCauses(fieldManager ?? ''), ...dryRunCauses(dryRun)];
}

// The manager is stored in managedFields and printed by kubectl: the server bounds it and keeps it printable.
const FIELD_MANAGER_MAX_LENGTH = 128;

function fieldManagerCauses(manager: string): FieldCause[] {
  const causes: FieldCause[] = [];
  // Go measures the length in bytes.
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) {
    causes.push({
      field: 'fieldManager',
      message: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
      reason: 'FieldValueTooLong',
    });
  }
  let offset = 0;
  for (const char of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) {
      const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push({
        field: 'fieldManager',
        message: `Invalid value: ${JSON.stringify(manager)}: invalid character U+${code} (at position ${offset})`,
      });
    }
    offset += Buffer.byteLength(char);
  }
  return causes;
}

function dryRunCauses(dryRun: string[]): FieldCause[] {
  return dryRun.every((v) => v === 'All') ? [] : [notSupported('dryRun', dryRun.join(', '), ['All'])];
}

function notSupported(field: string, value: string, supported: string[]): FieldCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`, reason: 'FieldValueNotSupported' };
}

function throwIfInvalid(kind: string, causes: FieldCause[]): void {
  if (causes.length > 0) throw invalid(kind, '', causes, 'meta.k8s.io');
}

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

function parseInt64(text: string, name: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw badRequest(`${name}: Invalid value: ${JSON.stringify(text)}: not a decimal integer`);
  const n = BigInt(text);
  if (n > MAX_INT64 || n < MIN_INT64) throw badRequest(`${name}: Invalid value: ${JSON.stringify(text)}: value out of range`);
  // Past 2^53 the exact value no longer matters: a limit or a timeout that large is "no limit" either way.
  return Number(n);
}
