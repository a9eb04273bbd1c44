// The combinations of list and watch query parameters kube-apiserver refuses (metav1 ListOptions validation).
import { invalid, type FieldCause } from '../apimachinery/statusError.js';

/** The parameters the rules look at, as sent: `undefined` when absent. */
export interface ListOptionParams {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  continueToken?: string;
  /** Present at all (`sendInitialEvents=false` counts: kube checks the pointer, not the value). */
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
}

/**
 * Checks `resourceVersionMatch` and `sendInitialEvents` against the rest of the request, as kube-apiserver does:
 * - LIST: `resourceVersionMatch` is `Exact` or `NotOlderThan`, needs a `resourceVersion`, not with `continue`,
 *   `Exact` not with `resourceVersion=0`; `sendInitialEvents` is forbidden.
 * - WATCH: `resourceVersionMatch` only with `sendInitialEvents`, and only `NotOlderThan`; `sendInitialEvents`
 *   needs `resourceVersionMatch=NotOlderThan` and `allowWatchBookmarks=true` (the WatchList feature counts as on).
 *
 * @throws StatusError `422 Invalid` for `ListOptions.meta.k8s.io`, one cause per broken rule.
 */
export function validateListOptions(p: ListOptionParams): void {
  const causes = p.watch ? watchRules(p) : listRules(p);
  if (causes.length > 0) throw invalid('ListOptions', '', causes, 'meta.k8s.io');
}

function listRules(p: ListOptionParams): FieldCause[] {
  const causes: FieldCause[] = [];
  const match = p.resourceVersionMatch;
  if (match !== undefined) {
    if (p.resourceVersion === undefined)
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (p.continueToken !== undefined)
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && p.resourceVersion === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (p.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

function watchRules(p: ListOptionParams): FieldCause[] {
  const causes: FieldCause[] = [];
  const match = p.resourceVersionMatch;
  if (p.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan')
      causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!p.allowWatchBookmarks)
      causes.push(forbidden('allowWatchBookmarks', 'allowWatchBookmarks must be set to true when sendInitialEvents is set'));
  }
  if (match !== undefined) {
    if (p.sendInitialEvents === undefined) {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (p.continueToken !== undefined)
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return causes;
}

function forbidden(field: string, why: string): FieldCause {
  return { field, message: `Forbidden: ${why}`, reason: 'FieldValueForbidden' };
}

function notSupported(field: string, value: string, supported: string[]): FieldCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`, reason: 'FieldValueNotSupported' };
}
