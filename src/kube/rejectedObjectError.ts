// The error an informer reports for an object from the server that it refused to store.
import { describeValue } from '../core/errors.js';

/**
 * An object the server sent that an informer did not store: not an object, no usable key, outside the
 * informer's namespace or selectors, or with a resourceVersion it could never watch from. Reported on the
 * informer's `errors$` (as the `error` of a `TransformError`); the informer keeps every other object.
 */
export class RejectedObjectError extends Error {
  /** Always `'RejectedObjectError'`. */
  override readonly name = 'RejectedObjectError';
  constructor(
    /** The collection path the object came from, e.g. `/api/v1/namespaces/a/configmaps`. */
    readonly resource: string,
    /** `namespace/name` of the object, when it has one. */
    readonly key: string | undefined,
    /** The value as the server sent it. */
    readonly value: unknown,
    /** Why it was refused. */
    readonly reason: string,
  ) {
    super(`rejected ${key !== undefined ? `${JSON.stringify(key)} ` : ''}from ${resource}: ${reason}: ${describeValue(value)}`);
  }
}
