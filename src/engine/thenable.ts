// Telling a Promise (or any thenable) apart from a plain value, where user code may return either.

/** @internal Whether `v` is a Promise or another object with a `then` method. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}
