/**
 * 95% intervals for benchmark figures over rounds, by the percentile bootstrap with a seeded PRNG,
 * so the same samples always give the same interval (a report can be reproduced from its JSON).
 * The eval's interval code (src/eval/confidence.ts) is for pass rates (Wilson, Fisher); these are
 * for continuous figures: the median (or mean) of one subject's rounds, and the ratio of two
 * subjects' medians (or means) over rounds run interleaved (`interleaveRounds`), resampled as pairs.
 */
import { Prng } from "../soak/prng.js";

/** A figure with its interval: `estimate` from all the samples, `[low, high]` the bootstrap interval. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
  /** Rounds (samples per subject) the interval is over. */
  rounds: number;
  /** Confidence level, e.g. 0.95. */
  level: number;
}

/** Options of the bootstrap: resamples (default 10,000), PRNG seed (default 1), confidence level (default 0.95). */
export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  level?: number;
}

/** The median (the mean of the two middle values for an even count); NaN for no values. */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The arithmetic mean; NaN for no values. */
export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}

/** The `q` quantile (0–1) of sorted values, linearly interpolated between the nearest ranks. */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  const lo = sorted[below]!;
  const hi = sorted[above]!;
  return lo === hi ? lo : lo + (hi - lo) * (at - below);
}

/**
 * The percentile bootstrap interval of `statistic` over paired samples: `columns` are equally long
 * sample arrays whose i-th entries belong together (round i of each subject). Each resample draws
 * round indices with replacement and takes the same rounds from every column. A resample whose
 * statistic is not finite makes the interval unbounded (−∞, ∞): nothing can be decided from it.
 */
export function bootstrapInterval(
  columns: readonly (readonly number[])[],
  statistic: (...columns: Float64Array[]) => number,
  options: BootstrapOptions = {},
): Interval {
  const { resamples = 10_000, seed = 1, level = 0.95 } = options;
  const rounds = columns[0]?.length ?? 0;
  if (rounds === 0) throw new RangeError("bootstrapInterval: no samples");
  if (columns.some((c) => c.length !== rounds))
    throw new RangeError(
      `bootstrapInterval: paired samples must be equally long, got ${columns.map((c) => c.length).join(", ")}`,
    );
  const estimate = statistic(...columns.map((c) => Float64Array.from(c)));
  const prng = new Prng(seed);
  const stats = new Float64Array(resamples);
  const picked = columns.map(() => new Float64Array(rounds));
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < rounds; i++) {
      const k = Math.floor(prng.next() * rounds);
      for (const [c, column] of columns.entries()) picked[c]![i] = column[k]!;
    }
    stats[r] = statistic(...picked);
  }
  if (!Number.isFinite(estimate) || stats.some((s) => !Number.isFinite(s)))
    return { estimate, low: -Infinity, high: Infinity, rounds, level };
  const sorted = stats.sort();
  const tail = (1 - level) / 2;
  return { estimate, low: quantileOfSorted(sorted, tail), high: quantileOfSorted(sorted, 1 - tail), rounds, level };
}

/** The ratio of two medians; not finite when the denominator's median is not positive. */
const ratioOfMedians = (a: Float64Array, b: Float64Array) => {
  const denominator = median(b);
  return denominator > 0 ? median(a) / denominator : NaN;
};

/**
 * The ratio median(a) / median(b) with its bootstrap interval, where `a[i]` and `b[i]` were measured
 * in the same round (interleaved), so load that hit round i hit both and the pair is resampled
 * together. E.g. ours / a peer's per-trip overhead, or throughput. Unbounded when the denominator's
 * median can be zero or negative.
 */
export function ratioInterval(a: readonly number[], b: readonly number[], options?: BootstrapOptions): Interval {
  return bootstrapInterval([a, b], ratioOfMedians, options);
}

/** The median of one subject's rounds with its bootstrap interval (for a goal on an absolute figure). */
export function medianInterval(samples: readonly number[], options?: BootstrapOptions): Interval {
  return bootstrapInterval([samples], median, options);
}

/** The ratio of two means; not finite when the denominator's mean is not positive. */
const ratioOfMeans = (a: Float64Array, b: Float64Array) => {
  const denominator = mean(b);
  return denominator > 0 ? mean(a) / denominator : NaN;
};

/**
 * The ratio mean(a) / mean(b) with its bootstrap interval, `a[i]` and `b[i]` measured in the same
 * round and resampled together, as `ratioInterval` does for medians: for a figure that is a rate
 * over each round (requests per second), where every round's total counts. Unbounded when the
 * denominator's mean can be zero or negative.
 */
export function meanRatioInterval(a: readonly number[], b: readonly number[], options?: BootstrapOptions): Interval {
  return bootstrapInterval([a, b], ratioOfMeans, options);
}

/** The mean of one subject's rounds with its bootstrap interval. */
export function meanInterval(samples: readonly number[], options?: BootstrapOptions): Interval {
  return bootstrapInterval([samples], mean, options);
}

/** "0.76× (0.70–0.83)": the estimate with its `unit`, then its interval, to `digits` decimals ("n/a" for no estimate, ∞ for an unbounded end). */
export function formatInterval(interval: Interval, unit = "", digits = 2): string {
  const f = (n: number) => (Number.isNaN(n) ? "n/a" : Number.isFinite(n) ? n.toFixed(digits) : n > 0 ? "∞" : "−∞");
  return `${f(interval.estimate)}${unit} (${f(interval.low)}–${f(interval.high)})`;
}
