// Strict mode: costly invariant checks after every transaction, off unless asked for.

let strict = readEnv();

function readEnv(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.RXKRT_STRICT === '1' || env?.RXKRT_STRICT === 'true';
}

/**
 * Turns strict mode on or off. In strict mode rxkrt checks its internal invariants after every
 * transaction (every output owned by exactly one input, reverse index consistent with recorded
 * dependencies, no `update` between equal values, mapCollection keeps keys) and freezes objects deeply.
 * The environment variable `RXKRT_STRICT=1` turns it on at load.
 */
export function setStrictMode(on: boolean): void {
  strict = on;
}

/** Whether strict mode is on. */
export function isStrictMode(): boolean {
  return strict;
}

/** @internal Thrown by a failed strict-mode check: a bug in rxkrt or a broken user contract. */
export class InvariantError extends Error {
  override readonly name = 'InvariantError';
}
