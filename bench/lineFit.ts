// A least-squares line through a cost measured at several sizes: what the size adds, and what is left at zero.

export interface LineFit {
  /** The cost at size zero (the line's intercept). */
  readonly fixed: number;
  /** What each unit of size adds (the slope). */
  readonly perUnit: number;
}

/**
 * The least-squares line through (`sizes[i]`, `costs[i]`).
 * @throws Error for fewer than two points, lists of different lengths, or sizes all alike.
 */
export function fitLine(sizes: readonly number[], costs: readonly number[]): LineFit {
  const n = sizes.length;
  if (n < 2 || costs.length !== n)
    throw new Error(`fitLine needs two or more points, one cost per size (${n} sizes, ${costs.length} costs)`);
  const meanX = sizes.reduce((a, b) => a + b, 0) / n;
  const meanY = costs.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (sizes[i]! - meanX) * (costs[i]! - meanY);
    sxx += (sizes[i]! - meanX) ** 2;
  }
  if (sxx === 0) throw new Error('fitLine needs at least two different sizes');
  const perUnit = sxy / sxx;
  return { fixed: meanY - perUnit * meanX, perUnit };
}
