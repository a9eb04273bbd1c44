// The one place the API server reads time or arms timers, so tests can swap in virtual time.

/** A cancellable timer handle. */
export interface TimerHandle {
  /** Stops the timer; its callback will not run. Safe after it ran. */
  cancel(): void;
}

/**
 * Time and timers for the API server. Every timestamp (`creationTimestamp`, managedFields times) and every
 * timer (bookmarks, watch timeouts, injected delays) goes through one of these.
 */
export interface Clock {
  /** The current time. */
  now(): Date;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Runs `fn` every `ms` milliseconds. */
  setInterval(fn: () => void, ms: number): TimerHandle;
}

/**
 * The wall clock. Timers are `unref`'d: an idle test server must never be what keeps Node alive
 * (the listening socket does that for the standalone CLI).
 */
export const realClock: Clock = {
  now: () => new Date(),
  setTimeout(fn, ms) {
    const t = globalThis.setTimeout(fn, ms);
    t.unref();
    return { cancel: () => globalThis.clearTimeout(t) };
  },
  setInterval(fn, ms) {
    const t = globalThis.setInterval(fn, ms);
    t.unref();
    return { cancel: () => globalThis.clearInterval(t) };
  },
};

/** RFC 3339 at second precision, as Kubernetes writes `metav1.Time`. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
