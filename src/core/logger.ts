// Where rxkrt's own log lines go; replaceable so applications route them into their logging.

/** A sink for rxkrt's warnings and errors. */
export interface Logger {
  /** A condition rxkrt recovers from on its own (it logs none today); `detail` is the cause, if any. */
  warn(message: string, detail?: unknown): void;
  /** A failure the application should know of (a transform or handler that threw, a status write given up); `detail` is the cause. */
  error(message: string, detail?: unknown): void;
}

const consoleLogger: Logger = {
  warn: (m, d) => (d === undefined ? console.warn(`[rxkrt] ${m}`) : console.warn(`[rxkrt] ${m}`, d)),
  error: (m, d) => (d === undefined ? console.error(`[rxkrt] ${m}`) : console.error(`[rxkrt] ${m}`, d)),
};

let current: Logger = consoleLogger;
const seen = new Set<string>();
const SEEN_LIMIT = 10_000;

/** Replaces rxkrt's logger (pass nothing to restore the console logger). */
export function setLogger(logger?: Logger): void {
  current = logger ?? consoleLogger;
}

/** @internal The logger in use. */
export function log(): Logger {
  return current;
}

/**
 * @internal Logs an error once per distinct message: a transform that fails on every recomputation would
 * otherwise flood the log; every occurrence still reaches `errors$` and the counters.
 */
export function logErrorOnce(message: string, detail?: unknown): void {
  if (seen.has(message)) return;
  if (seen.size >= SEEN_LIMIT) seen.clear();
  seen.add(message);
  current.error(message, detail);
}
