// The lifetime of a collection an operator builds: from the subscription that asked for it to its end.

/**
 * A signal that aborts when the subscription ends or when the user's own `stop` aborts, whichever comes
 * first; `end` ends it from the subscription's side.
 */
export function subscriptionLifetime(userStop: AbortSignal | undefined): { signal: AbortSignal; end: () => void } {
  const own = new AbortController();
  const signal = userStop === undefined ? own.signal : AbortSignal.any([userStop, own.signal]);
  return { signal, end: () => own.abort() };
}
