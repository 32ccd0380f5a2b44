/** The benchmarks' number helpers: pure, so child processes and unit tests import them without Temporal's worker. */

/** The nearest-rank `p`th percentile of `values` (NaN for none). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** `n` rounded to `digits` decimals. */
export const round = (n: number, digits = 1) => Number(n.toFixed(digits));
