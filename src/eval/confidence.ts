/**
 * The statistics of comparing pass rates, in one place: 95% Wilson score intervals for each rate,
 * and a two-sided Fisher exact test for their difference (exact at the small counts evals have,
 * where a normal approximation misleads). Pure functions.
 */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;
/** A difference is significant when the two-sided p-value is below this. */
export const SIGNIFICANCE_LEVEL = 0.05;

/** A pass rate with its 95% Wilson interval (`null`s when nothing was judged). */
export interface PassRateInterval {
  passed: number;
  /** Judged rows: passed + failed. */
  total: number;
  rate: number | null;
  /** 95% Wilson score interval [low, high]. */
  interval: [number, number] | null;
}

/** The 95% Wilson score interval of `passed` out of `total`. */
export function wilsonInterval(passed: number, total: number, z = Z95): [number, number] | null {
  if (total === 0) return null;
  const p = passed / total;
  const z2 = z * z;
  const centre = (p + z2 / (2 * total)) / (1 + z2 / total);
  const half = (z / (1 + z2 / total)) * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total));
  return [passed === 0 ? 0 : Math.max(0, centre - half), passed === total ? 1 : Math.min(1, centre + half)];
}

/** `passed` out of `total` with its rate and interval. */
export function passRateInterval(passed: number, total: number): PassRateInterval {
  return { passed, total, rate: total === 0 ? null : passed / total, interval: wilsonInterval(passed, total) };
}

function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) table[i] = table[i - 1]! + Math.log(i);
  return table;
}

/**
 * The two-sided Fisher exact test of `passedA`/`totalA` against `passedB`/`totalB`: the probability,
 * with the margins fixed, of a table at least as unlikely as the one observed.
 */
export function fisherExactTwoSided(passedA: number, totalA: number, passedB: number, totalB: number): number {
  const passed = passedA + passedB;
  const n = totalA + totalB;
  if (totalA === 0 || totalB === 0 || passed === 0 || passed === n) return 1;
  const lf = logFactorials(n);
  const logP = (a: number) =>
    lf[passed]! +
    lf[n - passed]! +
    lf[totalA]! +
    lf[totalB]! -
    lf[n]! -
    lf[a]! -
    lf[passed - a]! -
    lf[totalA - a]! -
    lf[totalB - passed + a]!;
  const observed = logP(passedA);
  let p = 0;
  for (let a = Math.max(0, passed - totalB); a <= Math.min(passed, totalA); a++) {
    const logPa = logP(a);
    if (logPa <= observed + 1e-7) p += Math.exp(logPa);
  }
  return Math.min(1, p);
}

/** How two pass rates compare: the difference, its p-value, and whether it is significant at 5%. */
export interface RateDifference {
  baseline: PassRateInterval;
  current: PassRateInterval;
  /** current.rate - baseline.rate (null when either judged nothing). */
  difference: number | null;
  /** Two-sided Fisher exact test. */
  pValue: number | null;
  significant: boolean;
  /** "better" / "worse" when significant, else "within noise"; "not comparable" when either judged nothing. */
  verdict: "better" | "worse" | "within noise" | "not comparable";
}

/** Compares `passedA`/`totalA` (the baseline) with `passedB`/`totalB`. */
export function compareRates(
  baseline: { passed: number; total: number },
  current: { passed: number; total: number },
): RateDifference {
  const a = passRateInterval(baseline.passed, baseline.total);
  const b = passRateInterval(current.passed, current.total);
  if (a.rate === null || b.rate === null)
    return { baseline: a, current: b, difference: null, pValue: null, significant: false, verdict: "not comparable" };
  const pValue = fisherExactTwoSided(a.passed, a.total, b.passed, b.total);
  const significant = pValue < SIGNIFICANCE_LEVEL;
  const difference = b.rate - a.rate;
  return {
    baseline: a,
    current: b,
    difference,
    pValue,
    significant,
    verdict: significant ? (difference > 0 ? "better" : "worse") : "within noise",
  };
}

/** "3/16 (19%, 95% CI 7%–43%)". */
export function formatRate(rate: PassRateInterval): string {
  if (rate.rate === null || !rate.interval) return `${rate.passed}/${rate.total} (nothing judged)`;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return `${rate.passed}/${rate.total} (${pct(rate.rate)}, 95% CI ${pct(rate.interval[0])}–${pct(rate.interval[1])})`;
}
