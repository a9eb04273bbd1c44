// A token bucket on an injected clock: `rate` tokens per second, holding at most `burst`.

/** Paces starts: `take(now)` spends a token or says how long until the next one. Pure arithmetic, no timers. */
export class TokenBucket {
  private tokens: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private lastRefill: number,
  ) {
    this.tokens = burst;
  }

  /** Spends a token and returns 0, or returns the milliseconds until one will be there (spending nothing). */
  take(now: number): number {
    // A clock that goes backwards (a virtual scheduler reset) must not drain the bucket.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.lastRefill) * this.rate) / 1000);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.rate));
  }
}
