// Where rxkrt's own log lines go; replaceable so applications route them into their logging (pino's convention).

/** Fields of a log line: the collection, key, resource and error it is about. */
export type LogFields = Readonly<Record<string, unknown>>;

/** One log level: `(fields, message)` or `(message)`, as pino and bunyan call it. */
export interface LogFn {
  (fields: object, message: string): void;
  (message: string): void;
}

/** A sink for rxkrt's log lines. A pino logger is one as it is. */
export interface Logger {
  /** What rxkrt is doing, in detail: a collection synced, a watch opened, a write retried. */
  debug: LogFn;
  /** Milestones: an informer listed or relisted. */
  info: LogFn;
  /** Something to know that rxkrt recovered from (rxkrt logs none of its own today). */
  warn: LogFn;
  /** A failure the application should know of: a transform or handler threw, a request failed, a write was given up. */
  error: LogFn;
}

/** Levels, least severe first. */
export type LogLevel = keyof Logger;
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * A logger that writes `[rxkrt] message {fields}` to the console, from `level` up (default `info`).
 * @example setLogger(consoleLogger('debug'));
 */
export function consoleLogger(level: LogLevel = 'info'): Logger {
  const from = LEVELS.indexOf(level);
  const at = (l: LogLevel, write: (...args: unknown[]) => void): LogFn =>
    (LEVELS.indexOf(l) < from
      ? () => {}
      : (a: object | string, b?: string) => (typeof a === 'string' ? write(`[rxkrt] ${a}`) : write(`[rxkrt] ${b ?? ''}`, a))) as LogFn;
  return {
    debug: at('debug', console.debug),
    info: at('info', console.info),
    warn: at('warn', console.warn),
    error: at('error', console.error),
  };
}

const silent: LogFn = () => {};
// Until told otherwise, only what needs attention: a library should not fill its host's console.
let current: Logger = consoleLogger('warn');
const seen = new Set<string>();
const SEEN_LIMIT = 10_000;

/**
 * Replaces rxkrt's logger (pass nothing to restore the console logger, which prints `warn` and `error`). Levels the given logger
 * lacks are dropped, so `{ warn, error }` is enough to hear only those.
 * @example setLogger(pino({ level: 'debug' }));
 */
export function setLogger(logger?: Partial<Logger>): void {
  if (logger === undefined) {
    current = consoleLogger('warn');
    return;
  }
  // Bound, so that a logger whose methods use `this` (pino's do) keeps working when called through ours.
  const bind = (l: LogLevel): LogFn => (typeof logger[l] === 'function' ? (logger[l].bind(logger) as LogFn) : silent);
  current = { debug: bind('debug'), info: bind('info'), warn: bind('warn'), error: bind('error') };
}

/** @internal The logger in use. */
export function log(): Logger {
  return current;
}

/**
 * @internal Logs an error once per distinct message: a transform that fails on every recomputation would
 * otherwise flood the log; every occurrence still reaches `errors$` and the counters.
 */
export function logErrorOnce(fields: LogFields, message: string): void {
  if (seen.has(message)) return;
  if (seen.size >= SEEN_LIMIT) seen.clear();
  seen.add(message);
  current.error(fields, message);
}
