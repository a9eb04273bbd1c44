// Status conditions (metav1.Condition): set one without churning lastTransitionTime, find one, test one.
import { UsageError } from '../core/errors.js';

/** A condition's status, as Kubernetes spells it. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One entry of `status.conditions`, in the shape of Kubernetes' `metav1.Condition`. */
export interface Condition {
  /** What the condition is about (`Ready`, `Available`), unique in the list. */
  readonly type: string;
  /** Whether it holds. */
  readonly status: ConditionStatus;
  /** A CamelCase word saying why. */
  readonly reason?: string;
  /** A sentence for people. */
  readonly message?: string;
  /** The `metadata.generation` the condition was computed from. */
  readonly observedGeneration?: number;
  /** When `status` last changed (RFC 3339, seconds). */
  readonly lastTransitionTime: string;
}

/** What a controller says about one condition; `setCondition` adds the time. */
export interface ConditionUpdate {
  /** The condition's type. */
  type: string;
  /** Its status now. */
  status: ConditionStatus;
  /** Why (a CamelCase word). */
  reason?: string;
  /** For people. */
  message?: string;
  /** The generation it was computed from. */
  observedGeneration?: number;
}

const STATUSES: ReadonlySet<string> = new Set(['True', 'False', 'Unknown']);

/** RFC 3339 with whole seconds, as Kubernetes writes `metav1.Time`. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Returns a new list with `update` applied: the condition of that type is replaced (or appended), and its
 * `lastTransitionTime` is `now` only when `status` changed (or the condition is new); a change of reason,
 * message or generation alone keeps the old time. Feeding a list back in with the same update returns an equal
 * list, so a status transform that calls it on every run emits nothing new. Pass `now` to be deterministic.
 * @throws UsageError when `type` is empty or `status` is not `True`, `False` or `Unknown`.
 * @example
 * const [status] = newStatusCollection(gadgets, (ctx, g) => {
 *   const cm = fetchOne(ctx, configMaps, filterKey(`${g.metadata.namespace}/gadget-${g.metadata.name}`));
 *   const ready = cm !== undefined;
 *   return {
 *     status: {
 *       conditions: setCondition(g.status?.conditions, {
 *         type: 'Ready',
 *         status: ready ? 'True' : 'False',
 *         reason: ready ? 'ConfigMapReady' : 'ConfigMapMissing',
 *         observedGeneration: g.metadata.generation,
 *       }),
 *     },
 *   };
 * });
 */
export function setCondition(conditions: readonly Condition[] | undefined | null, update: ConditionUpdate, now?: Date): Condition[] {
  if (typeof update.type !== 'string' || update.type === '') {
    throw new UsageError(`setCondition: type must be a non-empty string, got ${JSON.stringify(update.type)}`);
  }
  if (!STATUSES.has(update.status)) {
    throw new UsageError(`setCondition: status of ${update.type} must be True, False or Unknown, got ${JSON.stringify(update.status)}`);
  }
  const list = conditions ?? [];
  const old = list.find((c) => c.type === update.type);
  const next: Condition = {
    type: update.type,
    status: update.status,
    ...(update.reason !== undefined && { reason: update.reason }),
    ...(update.message !== undefined && { message: update.message }),
    ...(update.observedGeneration !== undefined && { observedGeneration: update.observedGeneration }),
    lastTransitionTime: old !== undefined && old.status === update.status ? old.lastTransitionTime : rfc3339(now ?? new Date()),
  };
  return old === undefined ? [...list, next] : list.map((c) => (c === old ? next : c));
}

/** The condition of `type`, if the list has one. */
export function findCondition(conditions: readonly Condition[] | undefined | null, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is there with status `True`. */
export function isConditionTrue(conditions: readonly Condition[] | undefined | null, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
