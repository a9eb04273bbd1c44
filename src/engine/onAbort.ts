// One abort listener per signal, however many collections share it.
//
// A controller usually hands one `stop` signal to hundreds of collections; a listener each would trip
// Node's MaxListenersExceededWarning and cost a closure per collection kept alive by the signal.

const callbacks = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * @internal Runs `fn` once when `signal` aborts (at once if it already has). Returns a function that
 * forgets `fn`, so a collection disposed some other way does not stay reachable from the signal.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => {};
  }
  const set = callbacks.get(signal) ?? listen(signal);
  set.add(fn);
  return () => set.delete(fn);
}

/**
 * The signal's one listener and its set of callbacks. A function of its own so that the closure `onAbort`
 * returns (which a collection keeps) does not share a context with this listener and so hold the signal.
 */
function listen(signal: AbortSignal): Set<() => void> {
  const fns = new Set<() => void>();
  callbacks.set(signal, fns);
  signal.addEventListener(
    'abort',
    () => {
      callbacks.delete(signal);
      for (const f of [...fns]) f();
    },
    { once: true },
  );
  return fns;
}
