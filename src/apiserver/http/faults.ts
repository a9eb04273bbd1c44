// Fault injection: fail or delay the next N requests that match, for tests of client resilience.

/** Picks the requests a fault applies to; `path` includes the query string. */
export type RequestMatcher = (method: string, path: string) => boolean;

/** What to do to one request. */
export interface FaultDecision {
  /** Wait this long before handling (0 = no delay). */
  delayMs: number;
  /** Answer with this status instead of handling. */
  failStatus?: number;
}

interface Rule {
  remaining: number;
  match: RequestMatcher;
  status?: number;
  delayMs?: number;
}

/**
 * Queues of pending faults. Each request consumes one unit from the first matching failure rule and
 * from the first matching delay rule (so one request can be both delayed and failed); rules are
 * dropped once used up.
 */
export class Faults {
  private failures: Rule[] = [];
  private delays: Rule[] = [];

  /**
   * Fails the next `n` matching requests with `status` (a `Status` body with the usual reason).
   *
   * @throws RangeError for a negative or fractional `n`, or a status outside 400–599.
   */
  failNext(n: number, status = 503, match: RequestMatcher = () => true): void {
    checkCount(n);
    checkFailureStatus(status, 'failNext');
    if (n > 0) this.failures.push({ remaining: n, match, status });
  }

  /**
   * Delays the next `n` matching requests by `ms` milliseconds.
   *
   * @throws RangeError for a negative or fractional `n`, or a negative `ms`.
   */
  delayNext(n: number, ms: number, match: RequestMatcher = () => true): void {
    checkCount(n);
    if (!(ms >= 0)) throw new RangeError(`delayNext: ms must be >= 0, got ${ms}`);
    if (n > 0) this.delays.push({ remaining: n, match, delayMs: ms });
  }

  /** Decides (and consumes) the faults for one request. */
  take(method: string, path: string): FaultDecision {
    const delay = consume(this.delays, method, path);
    const failure = consume(this.failures, method, path);
    this.delays = this.delays.filter((r) => r.remaining > 0);
    this.failures = this.failures.filter((r) => r.remaining > 0);
    return { delayMs: delay?.delayMs ?? 0, failStatus: failure?.status };
  }

  /** Forgets every pending fault. */
  clear(): void {
    this.failures = [];
    this.delays = [];
  }
}

function consume(rules: Rule[], method: string, path: string): Rule | undefined {
  const rule = rules.find((r) => r.remaining > 0 && r.match(method, path));
  if (rule) rule.remaining--;
  return rule;
}

/**
 * @internal Refuses a status no failure could carry (outside 400–599), naming the hook that was given it.
 * @throws RangeError
 */
export function checkFailureStatus(status: number, hook: string): void {
  if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`${hook}: status must be 400-599, got ${status}`);
}

function checkCount(n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`fault count must be a non-negative integer, got ${n}`);
}
